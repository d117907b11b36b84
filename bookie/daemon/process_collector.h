// ProcessCollector: Prometheus' standard process metrics for this process
// (process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_threads, process_open_fds,
// process_max_fds, process_start_time_seconds), read from procfs at scrape
// time (monitor/process_stats.h). The names and meanings are those of the
// official client libraries' process collectors, so dashboards and alerts
// written for a Java bookie's `process_*` series work unchanged.
//
// A figure that cannot be read is left out of the scrape, not sent as -1 or
// 0: a counter that jumped to -1 would read as a reset to rate().

#ifndef BK_BOOKIE_DAEMON_PROCESS_COLLECTOR_H_
#define BK_BOOKIE_DAEMON_PROCESS_COLLECTOR_H_

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "monitor/process_stats.h"

namespace bk::bookie {

// The families for one reading (empty families are left out).
std::vector<prometheus::MetricFamily> ProcessFamilies(
    const monitor::ProcessStats& stats);

class ProcessCollector final : public prometheus::Collectable {
 public:
  // `proc_root` is "/proc" outside tests.
  explicit ProcessCollector(std::string proc_root = "/proc")
      : proc_root_(std::move(proc_root)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return ProcessFamilies(monitor::ReadProcessStats(proc_root_));
  }

 private:
  const std::string proc_root_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_PROCESS_COLLECTOR_H_
