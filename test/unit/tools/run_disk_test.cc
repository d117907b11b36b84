// bkbench write's disk figures: bytes written to the journal's disks, their
// busy share and the I/O pressure between two snapshots of a hand-made
// procfs.

#include "tools/bkbench/run_disk.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/support/temp_dir.h"

namespace bk::bkbench {
namespace {

// /proc/diskstats with vda's sectors written (field 7) and io_ticks (10).
std::string Diskstats(uint64_t vda_sectors, uint64_t vda_ticks) {
  return absl::StrCat(" 254 0 vda 100 0 800 10 3000 0 ", vda_sectors, " 90 0 ",
                      vda_ticks, " 120\n",
                      " 7 0 loop0 0 0 0 0 0 0 0 0 0 0 0\n");
}

std::string Pressure(int64_t some_us) {
  return absl::StrCat("some avg10=0.00 avg60=0.00 avg300=0.00 total=", some_us,
                      "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
}

TEST_CASE("a run's disk figures: MB/s written, busy share, I/O pressure",
          "[bkbench]") {
  testing::TempDir tmp;
  const std::string proc = tmp.Sub("proc");
  REQUIRE(tmp.WriteFile("proc/diskstats", Diskstats(1000, 500)));
  REQUIRE(tmp.WriteFile("proc/pressure/io", Pressure(1000000)));
  RunDiskSnapshot a = TakeRunDisk(proc);
  // 10 s later: 11,718,750 sectors (6,000 MB), 7,700 ms busy, 5 s stalled.
  REQUIRE(
      tmp.WriteFile("proc/diskstats", Diskstats(1000 + 11718750, 500 + 7700)));
  REQUIRE(tmp.WriteFile("proc/pressure/io", Pressure(6000000)));
  RunDiskSnapshot b = TakeRunDisk(proc);
  b.at = a.at + absl::Seconds(10);

  const RunDisk d = RunDiskBetween(a, b, {"vda"});
  REQUIRE(d.disks == std::vector<std::string>{"vda"});
  CHECK(d.written_mb_per_s == Approx(600));
  CHECK(d.busy_pct == Approx(77));
  CHECK(d.io_stall_pct == Approx(50));
  const std::string line = DescribeRunDisk(d, 85000);
  INFO(line);
  CHECK(absl::StrContains(line, "vda: 600 MB/s written (7.1 KB per entry)"));
  CHECK(absl::StrContains(line, "77% busy"));
  CHECK(absl::StrContains(line, "waited for I/O 50%"));
}

TEST_CASE(
    "a journal dir on no disk the snapshots know gives no disk figure, "
    "and no pressure file none of that",
    "[bkbench]") {
  testing::TempDir tmp;
  const std::string proc = tmp.Sub("proc");
  REQUIRE(tmp.WriteFile("proc/diskstats", Diskstats(1000, 500)));
  RunDiskSnapshot a = TakeRunDisk(proc);
  RunDiskSnapshot b = TakeRunDisk(proc);
  b.at = a.at + absl::Seconds(1);
  const RunDisk d = RunDiskBetween(a, b, {"sdz"});
  CHECK(d.disks.empty());
  CHECK(d.written_mb_per_s == -1);
  CHECK(d.busy_pct == -1);
  CHECK(d.io_stall_pct == -1);
  CHECK(absl::StrContains(DescribeRunDisk(d, 1000), "not a block device"));
}

}  // namespace
}  // namespace bk::bkbench
