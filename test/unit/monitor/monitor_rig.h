// MonitorRig: a BaseMetricMonitor over a FakeHost, driven by a ManualClock.

#ifndef BK_TEST_UNIT_MONITOR_MONITOR_RIG_H_
#define BK_TEST_UNIT_MONITOR_MONITOR_RIG_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "monitor/base_metric_monitor.h"
#include "test/unit/monitor/fake_host.h"

namespace bk::monitor::testing {

struct MonitorRig {
  MonitorRig() {
    journal_dir = host.MakeDir("journal");
    ledger_dir = host.MakeDir("ledger");
    options.proc_root = host.proc_root();
    options.sys_root = host.sys_root();
    options.journal_dirs = {journal_dir};
    options.ledger_dirs = {ledger_dir};
    options.slide_window_size = 3;
  }

  std::unique_ptr<BaseMetricMonitor> Make(bool with_counters = true) {
    auto monitor = BaseMetricMonitor::Create(
        options, MonitorEnv{with_counters ? &counters : nullptr, &clock, {}});
    REQUIRE(monitor.ok());
    return *std::move(monitor);
  }

  // Advances the clock by `dt` and samples; the sample must read cleanly.
  void Step(BaseMetricMonitor& monitor, absl::Duration dt = absl::Seconds(1)) {
    clock.Advance(dt);
    absl::Status s = monitor.SampleOnce(clock.NowNanos());
    INFO(s.ToString());
    REQUIRE(s.ok());
  }

  FakeHost host;
  FakeCounters counters;
  ManualClock clock{1'000'000'000};
  MonitorOptions options;
  std::string journal_dir;
  std::string ledger_dir;
};

inline void CheckAllUnknown(const LoadReport& r) {
  for (const IoUtil* io : {&r.journal_io, &r.ledger_io}) {
    CHECK(io->util == -1);
    CHECK(io->util_max == -1);
    CHECK(io->source == UtilSource::kUnknown);
  }
  CHECK(r.cpu_used_rate == -1);
  CHECK(r.process_cpu_used_rate == -1);
  CHECK(r.write_bytes_per_second == -1);
  CHECK(r.free_disk_bytes == -1);
  CHECK(r.total_disk_bytes == -1);
  CHECK(r.window_ms == -1);
}

}  // namespace bk::monitor::testing

#endif  // BK_TEST_UNIT_MONITOR_MONITOR_RIG_H_
