#include "bookie/daemon/process_collector.h"

#include <prometheus/client_metric.h>

namespace bk::bookie {

std::vector<prometheus::MetricFamily> ProcessFamilies(
    const monitor::ProcessStats& s) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  auto add = [&out](const char* name, const char* help, MetricType type,
                    double v) {
    if (v < 0) return;  // unknown: left out
    prometheus::ClientMetric m;
    if (type == MetricType::Counter) {
      m.counter.value = v;
    } else {
      m.gauge.value = v;
    }
    out.push_back(prometheus::MetricFamily{name, help, type, {std::move(m)}});
  };
  add("process_cpu_seconds_total", "Total user and system CPU time spent",
      MetricType::Counter, s.cpu_seconds);
  add("process_resident_memory_bytes", "Resident memory size in bytes",
      MetricType::Gauge, s.resident_bytes);
  add("process_virtual_memory_bytes", "Virtual memory size in bytes",
      MetricType::Gauge, s.virtual_bytes);
  add("process_threads", "Number of OS threads in the process",
      MetricType::Gauge, s.threads);
  add("process_open_fds", "Number of open file descriptors", MetricType::Gauge,
      s.open_fds);
  add("process_max_fds", "Maximum number of open file descriptors",
      MetricType::Gauge, s.max_fds);
  add("process_start_time_seconds",
      "Start time of the process since the epoch in seconds", MetricType::Gauge,
      s.start_time_seconds);
  return out;
}

}  // namespace bk::bookie
