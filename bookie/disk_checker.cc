#include "bookie/disk_checker.h"

#include <algorithm>
#include <utility>

namespace bk::bookie {

absl::Status DiskCheckerOptions::Validate() const {
  auto in_range = [](double v) { return v > 0 && v <= 1; };
  if (!in_range(usage_threshold) || !in_range(warn_threshold) ||
      !in_range(lwm_threshold)) {
    return absl::InvalidArgumentError(
        "disk usage thresholds must be in (0, 1]");
  }
  if (warn_threshold > usage_threshold || lwm_threshold > usage_threshold) {
    return absl::InvalidArgumentError(
        "diskUsageWarnThreshold and diskUsageLwmThreshold must not exceed "
        "diskUsageThreshold");
  }
  if (check_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("diskCheckInterval must be positive");
  }
  return absl::OkStatus();
}

const char* DiskStateName(DiskState state) {
  switch (state) {
    case DiskState::kWritable:
      return "writable";
    case DiskState::kWarning:
      return "warning";
    case DiskState::kReadOnly:
      return "read-only";
  }
  return "unknown";
}

DiskChecker::DiskChecker(Env* env, std::vector<std::string> dirs,
                         DiskCheckerOptions options)
    : env_(env), dirs_(std::move(dirs)), options_(options) {}

DiskCheckResult DiskChecker::Check() {
  DiskCheckResult r;
  r.previous = state();
  for (const std::string& dir : dirs_) {
    DirUsage u;
    u.dir = dir;
    auto stats = env_->GetFsStats(dir);
    if (!stats.ok()) {
      u.error = stats.status();
      u.usage = 1;
    } else if (stats->total_bytes == 0) {
      u.error = absl::InternalError("filesystem reports zero capacity");
      u.usage = 1;
    } else {
      u.total_bytes = stats->total_bytes;
      u.free_bytes = std::min(stats->free_bytes, stats->total_bytes);
      u.usage = 1.0 - static_cast<double>(u.free_bytes) /
                          static_cast<double>(u.total_bytes);
    }
    r.max_usage = std::max(r.max_usage, u.usage);
    r.dirs.push_back(std::move(u));
  }
  const double use = r.max_usage;
  DiskState next;
  if (use >= options_.usage_threshold) {
    next = DiskState::kReadOnly;
  } else if (r.previous == DiskState::kReadOnly &&
             use >= options_.lwm_threshold) {
    next = DiskState::kReadOnly;  // hysteresis: not yet below the lwm
  } else if (use >= options_.warn_threshold) {
    next = DiskState::kWarning;
  } else {
    next = DiskState::kWritable;
  }
  r.state = next;
  state_.store(next, std::memory_order_release);
  return r;
}

}  // namespace bk::bookie
