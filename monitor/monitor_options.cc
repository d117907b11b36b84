#include "monitor/monitor_options.h"

#include "absl/strings/str_cat.h"

namespace bk::monitor {

absl::Status ValidateMonitorOptions(const MonitorOptions& options) {
  if (!options.enabled) return absl::OkStatus();
  if (options.slide_window_size < 1 ||
      options.slide_window_size > kMaxSlideWindowSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("baseMetricMonitorMetricSlideWindowSize must be in 1..",
                     kMaxSlideWindowSize, ", got ", options.slide_window_size));
  }
  const absl::Duration min_interval = options.allow_short_interval_for_testing
                                          ? absl::Nanoseconds(1)
                                          : kMinStatInterval;
  if (options.stat_interval < min_interval ||
      options.stat_interval > kMaxStatInterval) {
    return absl::InvalidArgumentError(
        absl::StrCat("baseMetricMonitorStatIntervalMs must be in ",
                     absl::FormatDuration(min_interval), "..",
                     absl::FormatDuration(kMaxStatInterval), ", got ",
                     absl::FormatDuration(options.stat_interval)));
  }
  if (options.proc_root.empty() || options.sys_root.empty()) {
    return absl::InvalidArgumentError("proc_root and sys_root must be set");
  }
  return absl::OkStatus();
}

}  // namespace bk::monitor
