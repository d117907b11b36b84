#include "monitor/base_metric_monitor.h"

#include <algorithm>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "monitor/block_device.h"

namespace bk::monitor {
namespace {

absl::StatusOr<DeviceGroup> ResolveGroup(const std::string& sys_root,
                                         const std::vector<std::string>& dirs,
                                         bool shared) {
  DeviceGroup group;
  group.shared = shared;
  for (const std::string& dir : dirs) {
    absl::StatusOr<std::vector<std::string>> disks = DisksOfPath(sys_root, dir);
    if (!disks.ok()) return disks.status();
    group.disks.insert(group.disks.end(), disks->begin(), disks->end());
  }
  std::sort(group.disks.begin(), group.disks.end());
  group.disks.erase(std::unique(group.disks.begin(), group.disks.end()),
                    group.disks.end());
  return group;
}

std::vector<std::string> Union(const DeviceGroup& a, const DeviceGroup& b) {
  std::vector<std::string> all = a.disks;
  all.insert(all.end(), b.disks.begin(), b.disks.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BaseMetricMonitor>> BaseMetricMonitor::Create(
    MonitorOptions options, MonitorEnv env) {
  absl::Status valid = ValidateMonitorOptions(options);
  if (!valid.ok()) return valid;
  DeviceGroup journal;
  DeviceGroup ledger;
  if (options.enabled) {
    absl::StatusOr<DeviceGroup> j = ResolveGroup(
        options.sys_root, options.journal_dirs, options.journal_device_shared);
    if (!j.ok()) return j.status();
    absl::StatusOr<DeviceGroup> l = ResolveGroup(
        options.sys_root, options.ledger_dirs, options.ledger_device_shared);
    if (!l.ok()) return l.status();
    journal = *std::move(j);
    ledger = *std::move(l);
  }
  if (env.clock == nullptr) env.clock = SystemClock();
  if (!env.fs_probe) env.fs_probe = ProbeFilesystem;
  return std::unique_ptr<BaseMetricMonitor>(
      new BaseMetricMonitor(std::move(options), std::move(env),
                            std::move(journal), std::move(ledger)));
}

BaseMetricMonitor::BaseMetricMonitor(MonitorOptions options, MonitorEnv env,
                                     DeviceGroup journal, DeviceGroup ledger)
    : options_(std::move(options)),
      clock_(env.clock),
      journal_group_(std::move(journal)),
      ledger_group_(std::move(ledger)),
      sampler_(options_.proc_root, Union(journal_group_, ledger_group_),
               options_.ledger_dirs, env.counters, std::move(env.fs_probe)) {
  window_.reserve(static_cast<size_t>(options_.slide_window_size) + 1);
}

BaseMetricMonitor::~BaseMetricMonitor() { Stop(); }

absl::Status BaseMetricMonitor::Start() {
  if (!options_.enabled) return absl::OkStatus();
  absl::MutexLock thread_lock(&thread_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (started_ || stop_) {
      return absl::FailedPreconditionError(
          "monitor already started or stopped");
    }
    started_ = true;
  }
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void BaseMetricMonitor::Stop() {
  absl::MutexLock thread_lock(&thread_mu_);
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void BaseMetricMonitor::Run() {
  for (;;) {
    // A failed read already shows as -1 in the report; there is no one to
    // hand the error to on this thread.
    (void)SampleOnce(clock_->NowNanos());
    absl::MutexLock lock(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), options_.stat_interval)) {
      return;
    }
  }
}

absl::Status BaseMetricMonitor::SampleOnce(int64_t now_nanos) {
  if (!options_.enabled) return absl::OkStatus();
  absl::MutexLock sample_lock(&sample_mu_);
  if (!window_.empty() && now_nanos <= window_.back().now_nanos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sample time ", now_nanos, " is not after ", window_.back().now_nanos));
  }
  absl::Status read_status;
  Reading reading = sampler_.Take(now_nanos, &read_status);
  const size_t capacity = static_cast<size_t>(options_.slide_window_size) + 1;
  if (window_.size() == capacity) window_.erase(window_.begin());
  window_.push_back(std::move(reading));

  LoadReport report;
  if (window_.size() == capacity) {
    report = ComputeLoad(std::span<const Reading>(window_), journal_group_,
                         ledger_group_);
  }
  absl::MutexLock lock(&mu_);
  report_ = std::move(report);
  ++sample_count_;
  return read_status;
}

LoadReport BaseMetricMonitor::Snapshot() const {
  absl::MutexLock lock(&mu_);
  return report_;
}

uint64_t BaseMetricMonitor::SampleCount() const {
  absl::MutexLock lock(&mu_);
  return sample_count_;
}

bool BaseMetricMonitor::AwaitSampleCount(uint64_t n,
                                         absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return sample_count_ >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

}  // namespace bk::monitor
