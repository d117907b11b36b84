// The background sampling thread: starts, publishes, stops and joins.

#include <catch2/catch.hpp>

#include "monitor/base_metric_monitor.h"
#include "test/unit/monitor/monitor_rig.h"

namespace bk::monitor {
namespace {

using testing::MonitorRig;

TEST_CASE("the background thread samples until stopped and then joins",
          "[monitor]") {
  MonitorRig rig;
  rig.options.allow_short_interval_for_testing = true;
  rig.options.stat_interval = absl::Milliseconds(1);
  rig.options.slide_window_size = 2;
  auto monitor = BaseMetricMonitor::Create(
      rig.options, MonitorEnv{&rig.counters, SystemClock(), {}});
  REQUIRE(monitor.ok());
  REQUIRE((*monitor)->Start().ok());
  CHECK((*monitor)->Start().code() == absl::StatusCode::kFailedPrecondition);

  REQUIRE((*monitor)->AwaitSampleCount(5, absl::Seconds(30)));
  LoadReport r = (*monitor)->Snapshot();
  CHECK(r.window_ms >= 0);
  CHECK(r.total_disk_bytes > 0);

  (*monitor)->Stop();
  const uint64_t after_stop = (*monitor)->SampleCount();
  // Joined: nothing samples any more, and a second Stop is harmless.
  CHECK_FALSE(
      (*monitor)->AwaitSampleCount(after_stop + 1, absl::Milliseconds(20)));
  (*monitor)->Stop();
  CHECK((*monitor)->Start().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("destroying a running monitor stops its thread", "[monitor]") {
  MonitorRig rig;
  auto monitor = rig.Make();  // 1 s interval: Stop must not wait it out
  REQUIRE(monitor->Start().ok());
  REQUIRE(monitor->AwaitSampleCount(1, absl::Seconds(30)));
  monitor.reset();
  SUCCEED();
}

}  // namespace
}  // namespace bk::monitor
