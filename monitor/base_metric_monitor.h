// BaseMetricMonitor: the bookie samples its own load (BP-65).
//
// Every stat_interval the monitor takes one Reading (io_ticks of the disks
// behind the journal and ledger dirs, CPU ticks, the bookie's OwnCounters,
// free/total space of the ledger filesystems) and keeps the last
// slide_window_size + 1 of them. Once the window is full, each sample
// publishes a LoadReport computed over the whole window (load_calculator.h
// says how); until then, and whenever the monitor is disabled, Snapshot()
// returns a report whose every figure is -1.
//
// The block devices behind the dirs are resolved once, in Create().
//
// Lifecycle: Create() -> [Start() -> Stop()] -> destroy. Start() runs a
// background thread that samples every stat_interval; Stop() (and the
// destructor) wakes it and joins it. Tests instead call SampleOnce() with
// the times they choose, and never Start().
//
// Threads: every method is thread-safe. Snapshot() never waits for a sample
// in progress (sampling reads files; publishing only swaps the report).
// SampleOnce() calls are serialised.

#ifndef BK_MONITOR_BASE_METRIC_MONITOR_H_
#define BK_MONITOR_BASE_METRIC_MONITOR_H_

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "monitor/clock.h"
#include "monitor/disk_space.h"
#include "monitor/host_sampler.h"
#include "monitor/load_calculator.h"
#include "monitor/load_report.h"
#include "monitor/monitor_options.h"
#include "monitor/own_counters.h"
#include "monitor/reading.h"

namespace bk::monitor {

// What the monitor reads besides procfs and sysfs. Nothing here is owned.
struct MonitorEnv {
  // The bookie's totals; may be null (then write_bytes_per_second and the
  // busy-share fallback are -1). Must outlive the monitor.
  OwnCounters* counters = nullptr;
  // Time source; null means SystemClock(). Must outlive the monitor. The
  // background thread needs a clock that advances in real time.
  Clock* clock = nullptr;
  // Filesystem lookup for free/total space; empty means ProbeFilesystem.
  FsProbe fs_probe;
};

class BaseMetricMonitor {
 public:
  // Validates `options` and resolves the disks behind every dir.
  // kInvalidArgument for bad options, kNotFound for a dir that does not
  // exist. A disabled monitor resolves nothing and never fails here.
  static absl::StatusOr<std::unique_ptr<BaseMetricMonitor>> Create(
      MonitorOptions options, MonitorEnv env = {});

  BaseMetricMonitor(const BaseMetricMonitor&) = delete;
  BaseMetricMonitor& operator=(const BaseMetricMonitor&) = delete;

  // Stops the background thread if it runs.
  ~BaseMetricMonitor();

  // Starts the background sampling thread. No-op when disabled.
  // kFailedPrecondition when called a second time or after Stop().
  absl::Status Start();

  // Stops and joins the background thread; final (no restart). Idempotent;
  // SampleOnce() still works afterwards. Returns promptly
  // (the thread waits on a condition, not in a sleep).
  void Stop();

  // Takes one sample at `now_nanos` (a reading of the injected clock's
  // timeline) and publishes the new report. No-op when disabled.
  // kInvalidArgument (sample dropped) when now_nanos is not after the
  // previous sample. Otherwise the sample is kept, and the first error met
  // reading a source (whose figures become -1) is returned.
  absl::Status SampleOnce(int64_t now_nanos);

  // The latest published report.
  LoadReport Snapshot() const;

  // Number of samples kept so far, and a bounded wait for it to reach `n`
  // (for readiness checks and tests). Returns whether it did.
  uint64_t SampleCount() const;
  bool AwaitSampleCount(uint64_t n, absl::Duration timeout) const;

  // The disks behind the journal and ledger dirs, resolved at Create().
  const DeviceGroup& journal_group() const { return journal_group_; }
  const DeviceGroup& ledger_group() const { return ledger_group_; }

 private:
  BaseMetricMonitor(MonitorOptions options, MonitorEnv env, DeviceGroup journal,
                    DeviceGroup ledger);
  void Run();

  // Constant after construction.
  const MonitorOptions options_;
  Clock* const clock_;
  const DeviceGroup journal_group_;
  const DeviceGroup ledger_group_;
  const HostSampler sampler_;

  // Serialises sampling; held while reading files. Taken before mu_.
  absl::Mutex sample_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  // Readings oldest first; at most slide_window_size + 1.
  std::vector<Reading> window_ ABSL_GUARDED_BY(sample_mu_);

  mutable absl::Mutex mu_;
  LoadReport report_ ABSL_GUARDED_BY(mu_);
  uint64_t sample_count_ ABSL_GUARDED_BY(mu_) = 0;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;

  // Touched only by Start() and Stop(), under thread_mu_.
  absl::Mutex thread_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::thread thread_ ABSL_GUARDED_BY(thread_mu_);
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_BASE_METRIC_MONITOR_H_
