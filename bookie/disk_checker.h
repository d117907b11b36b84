// DiskChecker: decides from filesystem usage whether the bookie may take
// writes. The daemon calls Check() every diskCheckInterval (a test calls it
// directly, with an Env whose GetFsStats is faked).
//
// State machine over the fullest directory (usage = 1 - free / total):
//
//   kWritable --usage >= warn--> kWarning --usage >= threshold--> kReadOnly
//       ^  <--usage < warn--------'                                  |
//       '------------------- usage < lwm ----------------------------'
//
// Read-only is left only once every directory is below the low-water mark
// (hysteresis), so a bookie at the edge does not flap. A directory whose
// statistics cannot be read counts as full (fail safe) and is reported.
//
// Thread-safety: Check() from one thread at a time; state() from any.

#ifndef BK_BOOKIE_DISK_CHECKER_H_
#define BK_BOOKIE_DISK_CHECKER_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/env.h"

namespace bk::bookie {

struct DiskCheckerOptions {
  // diskUsageThreshold (0.95): at or above, the bookie turns read-only.
  double usage_threshold = 0.95;
  // diskUsageWarnThreshold (0.90): at or above, a warning.
  double warn_threshold = 0.90;
  // diskUsageLwmThreshold (0.90): read-only ends below this.
  double lwm_threshold = 0.90;
  // diskCheckInterval (10 s): how often the daemon calls Check().
  absl::Duration check_interval = absl::Seconds(10);

  absl::Status Validate() const;
};

enum class DiskState { kWritable, kWarning, kReadOnly };
const char* DiskStateName(DiskState state);

struct DirUsage {
  std::string dir;
  double usage = 0;  // 0..1; 1 when unreadable
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
  absl::Status error;
};

struct DiskCheckResult {
  DiskState state = DiskState::kWritable;
  DiskState previous = DiskState::kWritable;
  bool changed() const { return state != previous; }
  double max_usage = 0;
  std::vector<DirUsage> dirs;
};

class DiskChecker {
 public:
  // `env` must outlive the checker.
  DiskChecker(Env* env, std::vector<std::string> dirs,
              DiskCheckerOptions options);

  DiskCheckResult Check();
  DiskState state() const { return state_.load(std::memory_order_acquire); }

 private:
  // Constant after construction.
  Env* const env_;
  const std::vector<std::string> dirs_;
  const DiskCheckerOptions options_;

  // Own synchronisation (written by Check only).
  std::atomic<DiskState> state_{DiskState::kWritable};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DISK_CHECKER_H_
