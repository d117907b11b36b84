// IO utilisation, the window and the fallbacks, through BaseMetricMonitor
// driven sample by sample over a FakeHost.

#include <catch2/catch.hpp>

#include "monitor/base_metric_monitor.h"
#include "test/unit/monitor/monitor_rig.h"

namespace bk::monitor {
namespace {

using testing::CheckAllUnknown;
using testing::DiskLine;
using testing::MonitorRig;

// One disk, vda (254:0), holding both dirs through partition vda1.
void OnOneDisk(MonitorRig& rig) {
  auto vda = rig.host.AddDisk("vda", 254, 0);
  rig.host.PlaceDirOn(rig.journal_dir,
                      rig.host.AddPartition(vda, "vda1", 254, 1));
}

// dm-0 striped over vdb and vdc, holding both dirs.
void OnTwoDisks(MonitorRig& rig) {
  auto vdb = rig.host.AddDisk("vdb", 254, 16);
  auto vdc = rig.host.AddDisk("vdc", 254, 32);
  rig.host.PlaceDirOn(rig.journal_dir,
                      rig.host.AddStacked("dm-0", 253, 0, {vdb, vdc}));
}

void Vda(MonitorRig& rig, uint64_t ticks) {
  rig.host.SetDiskstats({{254, 0, "vda", ticks}, {254, 1, "vda1", ticks}});
}

void VdbVdc(MonitorRig& rig, uint64_t vdb, uint64_t vdc) {
  rig.host.SetDiskstats({{254, 16, "vdb", vdb},
                         {254, 32, "vdc", vdc},
                         {253, 0, "dm-0", vdb + vdc}});
}

TEST_CASE("every figure is -1 until the window is full", "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  auto monitor = rig.Make();
  CheckAllUnknown(monitor->Snapshot());
  // Window of 3 intervals needs 4 readings.
  for (int i = 0; i < 3; ++i) {
    Vda(rig, 100 * i);
    rig.Step(*monitor);
    CheckAllUnknown(monitor->Snapshot());
  }
  Vda(rig, 300);
  rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  CHECK(r.window_ms == 3000);
  CHECK(r.journal_io.util == 10);
  CHECK(r.journal_io.source == UtilSource::kBlockDevice);
  CHECK(r.total_disk_bytes > 0);
}

TEST_CASE("device util over a window with known deltas is exact", "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  auto monitor = rig.Make();
  REQUIRE(monitor->journal_group().disks == std::vector<std::string>{"vda"});
  for (uint64_t ticks : {1000, 1300, 1700, 1900}) {
    Vda(rig, ticks);
    rig.Step(*monitor);
  }
  LoadReport r = monitor->Snapshot();
  // 900 ms busy over 3000 ms.
  CHECK(r.journal_io.util == 30);
  CHECK(r.journal_io.util_max == 30);
  CHECK(r.journal_io.devices == std::vector<DeviceUtil>{{"vda", 30, 0}});
  CHECK(r.ledger_io.util == 30);

  // The window slides: the 1000 reading leaves it, (2500-1300)/3000.
  Vda(rig, 2500);
  rig.Step(*monitor);
  CHECK(monitor->Snapshot().journal_io.util == 40);

  // Uneven intervals weigh by time: the window is now 1000 + 500 + 500 ms
  // and holds 1900 -> 3400.
  Vda(rig, 3400);
  rig.Step(*monitor, absl::Milliseconds(500));
  Vda(rig, 3400);
  rig.Step(*monitor, absl::Milliseconds(500));
  CHECK(monitor->Snapshot().window_ms == 2000);
  CHECK(monitor->Snapshot().journal_io.util == 75);
}

TEST_CASE("device util is clamped to 100", "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  auto monitor = rig.Make();
  for (uint64_t ticks : {0, 1500, 3000, 4500}) {
    Vda(rig, ticks);
    rig.Step(*monitor);
  }
  CHECK(monitor->Snapshot().journal_io.util == 100);
}

TEST_CASE("the group figure is the mean over its disks, with the max",
          "[monitor]") {
  MonitorRig rig;
  OnTwoDisks(rig);
  auto monitor = rig.Make();
  REQUIRE(monitor->journal_group().disks ==
          std::vector<std::string>{"vdb", "vdc"});
  for (int i = 0; i < 4; ++i) {
    VdbVdc(rig, 200 * i, 600 * i);
    rig.Step(*monitor);
  }
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.util == 40);
  CHECK(r.journal_io.util_max == 60);
  CHECK(r.journal_io.devices ==
        std::vector<DeviceUtil>{{"vdb", 20, 0}, {"vdc", 60, 0}});
}

TEST_CASE("two dirs on one disk count the disk once", "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  std::string second = rig.host.MakeDir("journal2");
  rig.options.journal_dirs.push_back(second);
  auto monitor = rig.Make();
  CHECK(monitor->journal_group().disks == std::vector<std::string>{"vda"});
}

TEST_CASE("a wrapped counter gives -1 for that disk only", "[monitor]") {
  MonitorRig rig;
  OnTwoDisks(rig);
  auto monitor = rig.Make();
  VdbVdc(rig, 0, 4'294'966'000);
  rig.Step(*monitor);
  VdbVdc(rig, 500, 4'294'967'000);
  rig.Step(*monitor);
  VdbVdc(rig, 1000, 704);  // 32-bit io_ticks wrapped
  rig.Step(*monitor);
  VdbVdc(rig, 1500, 1704);
  rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.devices ==
        std::vector<DeviceUtil>{{"vdb", 50, 0}, {"vdc", -1, 0}});
  CHECK(r.journal_io.util == 50);
  CHECK(r.journal_io.util_max == 50);
  CHECK(r.journal_io.source == UtilSource::kBlockDevice);

  // Once the wrap has left the window, vdc is measured again.
  VdbVdc(rig, 2000, 2704);
  rig.Step(*monitor);
  VdbVdc(rig, 2500, 3704);
  rig.Step(*monitor);
  r = monitor->Snapshot();
  CHECK(r.journal_io.devices ==
        std::vector<DeviceUtil>{{"vdb", 50, 0}, {"vdc", 100, 0}});
  CHECK(r.journal_io.util == 75);
}

TEST_CASE("a disk that disappears gives -1 for that disk only", "[monitor]") {
  MonitorRig rig;
  OnTwoDisks(rig);
  auto monitor = rig.Make();
  for (int i = 0; i < 3; ++i) {
    VdbVdc(rig, 100 * i, 100 * i);
    rig.Step(*monitor);
  }
  rig.host.SetDiskstats({{254, 16, "vdb", 300}});  // vdc hot-unplugged
  rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.devices ==
        std::vector<DeviceUtil>{{"vdb", 10, 0}, {"vdc", -1, -1}});
  CHECK(r.journal_io.util == 10);
}

TEST_CASE("a dir on no block device falls back to the own busy share",
          "[monitor]") {
  MonitorRig rig;  // no PlaceDirOn: like tmpfs or overlay
  auto monitor = rig.Make();
  CHECK(monitor->journal_group().disks.empty());
  for (int i = 0; i < 4; ++i) {
    rig.counters.journal_busy_nanos = i * 250'000'000;  // 25% of each second
    rig.counters.ledger_busy_nanos = i * 100'000'000;
    rig.Step(*monitor);
  }
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(r.journal_io.util == 25);
  CHECK(r.journal_io.util_max == 25);
  CHECK(r.journal_io.devices.empty());
  CHECK(r.ledger_io.source == UtilSource::kOwnBusyTime);
  CHECK(r.ledger_io.util == 10);
}

TEST_CASE("a device marked shared falls back to the own busy share",
          "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  rig.options.journal_device_shared = true;
  auto monitor = rig.Make();
  for (int i = 0; i < 4; ++i) {
    Vda(rig, 900 * i);  // another bookie keeps the disk 90% busy
    rig.counters.journal_busy_nanos = i * 200'000'000;
    rig.Step(*monitor);
  }
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(r.journal_io.util == 20);
  // The disk figure is still shown, for the operator.
  CHECK(r.journal_io.devices == std::vector<DeviceUtil>{{"vda", 90, 0}});
  // The ledger dirs are not marked shared.
  CHECK(r.ledger_io.source == UtilSource::kBlockDevice);
  CHECK(r.ledger_io.util == 90);
}

TEST_CASE("with no disk and no own counters utilisation is unknown",
          "[monitor]") {
  MonitorRig rig;
  auto monitor = rig.Make(/*with_counters=*/false);
  for (int i = 0; i < 4; ++i) rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.util == -1);
  CHECK(r.journal_io.source == UtilSource::kUnknown);
  CHECK(r.write_bytes_per_second == -1);
  CHECK(r.window_ms == 3000);
}

TEST_CASE("write bytes per second is the window delta of bytes written",
          "[monitor]") {
  MonitorRig rig;
  auto monitor = rig.Make();
  for (int64_t bytes : {0, 1 << 20, 3 << 20, 6 << 20}) {
    rig.counters.bytes_written = bytes;
    rig.Step(*monitor);
  }
  CHECK(monitor->Snapshot().write_bytes_per_second == 2 << 20);
}

TEST_CASE("a bytes counter that goes backwards gives -1", "[monitor]") {
  MonitorRig rig;
  auto monitor = rig.Make();
  for (int64_t bytes : {100, 200, 50, 300}) {
    rig.counters.bytes_written = bytes;
    rig.Step(*monitor);
  }
  CHECK(monitor->Snapshot().write_bytes_per_second == -1);
}

TEST_CASE("a disabled monitor reports -1 for everything", "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  rig.options.enabled = false;
  auto monitor = rig.Make();
  REQUIRE(monitor->Start().ok());
  for (int i = 0; i < 5; ++i) {
    Vda(rig, 100 * i);
    rig.counters.bytes_written += 1000;
    rig.Step(*monitor);
  }
  CheckAllUnknown(monitor->Snapshot());
  CHECK(monitor->SampleCount() == 0);
  monitor->Stop();
}

TEST_CASE("a sample whose time does not advance is dropped", "[monitor]") {
  MonitorRig rig;
  auto monitor = rig.Make();
  rig.Step(*monitor);
  CHECK(monitor->SampleOnce(rig.clock.NowNanos()).code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(monitor->SampleCount() == 1);
}

TEST_CASE("an unreadable diskstats makes the disks unknown, not the rest",
          "[monitor]") {
  MonitorRig rig;
  OnOneDisk(rig);
  auto monitor = rig.Make();
  for (int i = 0; i < 3; ++i) {
    Vda(rig, 100 * i);
    rig.counters.bytes_written = 1000 * i;
    rig.Step(*monitor);
  }
  std::filesystem::remove(rig.host.root() / "proc" / "diskstats");
  rig.counters.bytes_written = 3000;
  rig.clock.Advance(absl::Seconds(1));
  CHECK(monitor->SampleOnce(rig.clock.NowNanos()).code() ==
        absl::StatusCode::kNotFound);
  LoadReport r = monitor->Snapshot();
  CHECK(r.journal_io.devices == std::vector<DeviceUtil>{{"vda", -1}});
  CHECK(r.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(r.write_bytes_per_second == 1000);
}

TEST_CASE("options are validated with BookKeeper's limits", "[monitor]") {
  MonitorRig rig;
  rig.options.stat_interval = absl::Milliseconds(10);
  CHECK(BaseMetricMonitor::Create(rig.options).status().code() ==
        absl::StatusCode::kInvalidArgument);
  rig.options.allow_short_interval_for_testing = true;
  CHECK(BaseMetricMonitor::Create(rig.options).ok());
  rig.options.slide_window_size = 0;
  CHECK(BaseMetricMonitor::Create(rig.options).status().code() ==
        absl::StatusCode::kInvalidArgument);
  rig.options.slide_window_size = 3;
  rig.options.ledger_dirs.push_back(rig.host.root().string() + "/missing");
  CHECK(BaseMetricMonitor::Create(rig.options).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE(
    "the journal device's write rate counts every writer's sectors, summed "
    "over its disks, shared or not",
    "[monitor]") {
  MonitorRig rig;
  OnTwoDisks(rig);
  rig.options.journal_device_shared = true;
  auto monitor = rig.Make();
  for (uint64_t i = 0; i < 4; ++i) {
    // vdb writes 1 MiB/s, vdc 2 MiB/s (2048 and 4096 sectors of 512 bytes
    // a second), whoever writes them: this bookie writes 100 KB/s of it.
    rig.host.SetDiskstats({{254, 16, "vdb", 100 * i, 2048 * i},
                           {254, 32, "vdc", 100 * i, 4096 * i},
                           {253, 0, "dm-0", 200 * i, 6144 * i}});
    rig.counters.bytes_written = static_cast<int64_t>(100'000 * i);
    rig.counters.journal_busy_nanos = static_cast<int64_t>(i * 50'000'000);
    rig.Step(*monitor);
  }
  LoadReport r = monitor->Snapshot();
  CHECK(r.write_bytes_per_second == 100'000);
  // Shared: utilisation is the own busy share, the bytes the whole disks'.
  CHECK(r.journal_io.source == UtilSource::kOwnBusyTime);
  CHECK(r.journal_io.device_write_bytes_per_second == 3 << 20);
  CHECK(r.journal_io.devices ==
        std::vector<DeviceUtil>{{"vdb", 10, 1 << 20}, {"vdc", 10, 2 << 20}});
  // The ledger dirs are on the same disks.
  CHECK(r.ledger_io.device_write_bytes_per_second == 3 << 20);

  // vdc vanishes: the group's write rate is unknown, not vdb's alone.
  for (uint64_t i = 4; i < 6; ++i) {
    rig.host.SetDiskstats({{254, 16, "vdb", 100 * i, 2048 * i}});
    rig.Step(*monitor);
  }
  r = monitor->Snapshot();
  CHECK(r.journal_io.device_write_bytes_per_second == -1);
  CHECK(r.journal_io.devices[0].write_bytes_per_second == 1 << 20);
  CHECK(r.journal_io.devices[1].write_bytes_per_second == -1);
}

}  // namespace
}  // namespace bk::monitor
