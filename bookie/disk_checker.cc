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
    : DiskChecker(env, {}, std::move(dirs), options) {}

namespace {
std::vector<std::string> Concat(std::vector<std::string> a,
                                const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

DiskChecker::DiskChecker(Env* env, std::vector<std::string> ledger_dirs,
                         std::vector<std::string> journal_dirs,
                         DiskCheckerOptions options)
    : env_(env),
      dirs_(Concat(ledger_dirs, journal_dirs)),
      ledger_dirs_(ledger_dirs.size()),
      options_(options),
      full_(dirs_.size(), false) {}

DiskCheckResult DiskChecker::Check() {
  DiskCheckResult r;
  r.previous = state();
  for (size_t i = 0; i < dirs_.size(); ++i) {
    const std::string& dir = dirs_[i];
    DirUsage u;
    u.dir = dir;
    u.journal = i >= ledger_dirs_;
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
    // Full at the threshold; stays full until below the lwm.
    full_[i] = u.usage >= options_.usage_threshold ||
               (full_[i] && u.usage >= options_.lwm_threshold);
    u.full = full_[i];
    r.max_usage = std::max(r.max_usage, u.usage);
    r.dirs.push_back(std::move(u));
  }
  bool journal_full = false, some_ledger_full = false;
  size_t ledger_full = 0;
  for (const DirUsage& u : r.dirs) {
    if (u.journal) {
      journal_full |= u.full;
    } else if (u.full) {
      ++ledger_full;
      some_ledger_full = true;
    }
  }
  const bool all_ledger_full = ledger_dirs_ > 0 && ledger_full == ledger_dirs_;
  DiskState next;
  if (journal_full || all_ledger_full) {
    next = DiskState::kReadOnly;
  } else if (some_ledger_full || r.max_usage >= options_.warn_threshold) {
    next = DiskState::kWarning;
  } else {
    next = DiskState::kWritable;
  }
  r.state = next;
  state_.store(next, std::memory_order_release);
  return r;
}

}  // namespace bk::bookie
