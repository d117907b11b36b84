#include "monitor/block_device.h"

#include <catch2/catch.hpp>

#include "test/unit/monitor/fake_host.h"

namespace bk::monitor {
namespace {

using testing::FakeHost;
using Disks = std::vector<std::string>;

TEST_CASE("a whole disk resolves to itself", "[monitor]") {
  FakeHost host;
  host.AddDisk("vda", 254, 0);
  auto disks = DisksOfDevice(host.sys_root(), {254, 0});
  REQUIRE(disks.ok());
  CHECK(*disks == Disks{"vda"});
}

TEST_CASE("a partition resolves to its whole disk", "[monitor]") {
  FakeHost host;
  auto nvme = host.AddDisk("nvme0n1", 259, 0);
  host.AddPartition(nvme, "nvme0n1p2", 259, 2);
  auto disks = DisksOfDevice(host.sys_root(), {259, 2});
  REQUIRE(disks.ok());
  CHECK(*disks == Disks{"nvme0n1"});
}

TEST_CASE("device-mapper is followed through slaves down to the disks",
          "[monitor]") {
  FakeHost host;
  auto vdb = host.AddDisk("vdb", 254, 16);
  auto vdb1 = host.AddPartition(vdb, "vdb1", 254, 17);
  auto vdc = host.AddDisk("vdc", 254, 32);
  // dm-0 (LVM over vdb1 and all of vdc), then dm-1 (dm-crypt) over dm-0.
  auto dm0 = host.AddStacked("dm-0", 253, 0, {vdb1, vdc});
  host.AddStacked("dm-1", 253, 1, {dm0});

  auto direct = DisksOfDevice(host.sys_root(), {253, 0});
  REQUIRE(direct.ok());
  CHECK(*direct == Disks{"vdb", "vdc"});
  auto stacked = DisksOfDevice(host.sys_root(), {253, 1});
  REQUIRE(stacked.ok());
  CHECK(*stacked == Disks{"vdb", "vdc"});
}

TEST_CASE("a device number sysfs does not know is on no block device",
          "[monitor]") {
  FakeHost host;
  host.AddDisk("vda", 254, 0);
  // 0:N is what tmpfs and overlay report.
  auto disks = DisksOfDevice(host.sys_root(), {0, 52});
  REQUIRE(disks.ok());
  CHECK(disks->empty());
}

TEST_CASE("a directory resolves through its filesystem's device number",
          "[monitor]") {
  FakeHost host;
  auto vda = host.AddDisk("vda", 254, 0);
  auto vda1 = host.AddPartition(vda, "vda1", 254, 1);
  std::string dir = host.MakeDir("journal");
  host.PlaceDirOn(dir, vda1);
  auto disks = DisksOfPath(host.sys_root(), dir);
  REQUIRE(disks.ok());
  CHECK(*disks == Disks{"vda"});
}

TEST_CASE("a missing directory is reported as not found", "[monitor]") {
  FakeHost host;
  auto disks = DisksOfPath(host.sys_root(), host.root().string() + "/nope");
  CHECK(disks.status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("a slaves loop is cut at the depth limit", "[monitor]") {
  FakeHost host;
  auto dm0 = host.AddStacked("dm-0", 253, 0, {});
  auto dm1 = host.AddStacked("dm-1", 253, 1, {dm0});
  std::filesystem::create_directory_symlink("../../dm-1",
                                            dm0 / "slaves" / "dm-1");
  auto disks = DisksOfDevice(host.sys_root(), {253, 1});
  CHECK(disks.status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("two partitions of one disk share it, partitions of two do not",
          "[monitor]") {
  FakeHost host;
  auto vda = host.AddDisk("vda", 254, 0);
  host.AddPartition(vda, "vda1", 254, 1);
  host.AddPartition(vda, "vda2", 254, 2);
  auto vdb = host.AddDisk("vdb", 254, 16);
  auto vdb1 = host.AddPartition(vdb, "vdb1", 254, 17);
  auto vdc = host.AddDisk("vdc", 254, 32);
  host.AddStacked("dm-0", 253, 0, {vdb1, vdc});  // LVM over vdb1 and vdc
  const std::string sys = host.sys_root();
  CHECK(DevicesShareDisk(sys, {254, 1}, {254, 2}));
  CHECK(DevicesShareDisk(sys, {254, 1}, {254, 0}));
  CHECK_FALSE(DevicesShareDisk(sys, {254, 1}, {254, 17}));
  CHECK(DevicesShareDisk(sys, {253, 0}, {254, 32}));
  CHECK(DevicesShareDisk(sys, {254, 17}, {253, 0}));
  CHECK_FALSE(DevicesShareDisk(sys, {253, 0}, {254, 2}));
}

TEST_CASE(
    "filesystems with no disk behind them share one only when they are the "
    "same device",
    "[monitor]") {
  FakeHost host;
  auto vda = host.AddDisk("vda", 254, 0);
  host.AddPartition(vda, "vda1", 254, 1);
  const std::string sys = host.sys_root();
  // 0:N: tmpfs, overlay, btrfs.
  CHECK(DevicesShareDisk(sys, {0, 52}, {0, 52}));
  CHECK_FALSE(DevicesShareDisk(sys, {0, 52}, {0, 53}));
  CHECK_FALSE(DevicesShareDisk(sys, {0, 52}, {254, 1}));
}

TEST_CASE("a device that cannot be resolved counts as sharing a disk",
          "[monitor]") {
  FakeHost host;
  auto vda = host.AddDisk("vda", 254, 0);
  host.AddPartition(vda, "vda1", 254, 1);
  auto dm0 = host.AddStacked("dm-0", 253, 0, {});
  host.AddStacked("dm-1", 253, 1, {dm0});
  std::filesystem::create_directory_symlink("../../dm-1",
                                            dm0 / "slaves" / "dm-1");
  CHECK(DevicesShareDisk(host.sys_root(), {253, 1}, {254, 1}));
}

TEST_CASE(
    "a directory shares a disk with another on a second partition of it, "
    "and a directory not made yet is taken at its parent",
    "[monitor]") {
  FakeHost host;
  auto vda = host.AddDisk("vda", 254, 0);
  auto vda1 = host.AddPartition(vda, "vda1", 254, 1);
  auto vda2 = host.AddPartition(vda, "vda2", 254, 2);
  auto vdb = host.AddDisk("vdb", 254, 16);
  const std::string ledgers = host.MakeDir("ledgers");
  host.PlaceDirOn(ledgers, vda1);
  // A second real filesystem, whatever the machine: procfs.
  const std::string other = "/proc";
  const std::string sys = host.sys_root();
  host.PlaceDirOn(other, vda2);
  CHECK(PathSharesDisk(sys, ledgers, {other}));
  CHECK(PathSharesDisk(sys, ledgers + "/not/made/yet", {other}));
  host.PlaceDirOn(other, vdb);
  CHECK_FALSE(PathSharesDisk(sys, ledgers, {other}));
  CHECK_FALSE(PathSharesDisk(sys, ledgers + "/not/made/yet", {other}));
  CHECK(PathSharesDisk(sys, ledgers, {other, host.MakeDir("journal")}));
  CHECK_FALSE(PathSharesDisk(sys, ledgers, {}));
}

}  // namespace
}  // namespace bk::monitor
