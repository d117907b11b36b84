// MonitorOptions: the knobs of BaseMetricMonitor, with BookKeeper's key names.

#ifndef BK_MONITOR_MONITOR_OPTIONS_H_
#define BK_MONITOR_MONITOR_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace bk::monitor {

// Bounds that keep a misconfiguration from turning the monitor into a
// memory or CPU hog.
inline constexpr int kMaxSlideWindowSize = 3600;
inline constexpr absl::Duration kMinStatInterval = absl::Seconds(1);
inline constexpr absl::Duration kMaxStatInterval = absl::Hours(1);

struct MonitorOptions {
  // baseMetricMonitorEnabled. When false the monitor never samples and every
  // figure of its report is -1.
  bool enabled = true;

  // baseMetricMonitorStatIntervalMs. Time between two samples taken by the
  // background thread. At least kMinStatInterval (1 s) unless
  // allow_short_interval_for_testing is set.
  absl::Duration stat_interval = absl::Seconds(1);

  // baseMetricMonitorMetricSlideWindowSize. Number of sampling intervals the
  // figures are averaged over (the window holds this many + 1 readings).
  // 1..kMaxSlideWindowSize. Until the window is full every figure is -1.
  int slide_window_size = 3;

  // journalDirectories / ledgerDirectories. Each must exist when the monitor
  // is created; the block devices holding them are resolved once, then.
  std::vector<std::string> journal_dirs;
  std::vector<std::string> ledger_dirs;

  // The journal (ledger) device is shared with other bookies or other heavy
  // writers, so its io_ticks say nothing about this bookie: report the
  // bookie's own busy share instead. Devices are still listed in the report.
  bool journal_device_shared = false;
  bool ledger_device_shared = false;

  // Roots of procfs and sysfs; tests point them at recorded trees.
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";

  // Lets tests use a stat_interval below kMinStatInterval.
  bool allow_short_interval_for_testing = false;
};

// OK when `options` can be used; kInvalidArgument naming the bad field
// otherwise. Disabled options are always valid.
absl::Status ValidateMonitorOptions(const MonitorOptions& options);

}  // namespace bk::monitor

#endif  // BK_MONITOR_MONITOR_OPTIONS_H_
