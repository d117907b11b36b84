// DiskChecker: decides from filesystem usage whether the bookie may take
// writes. The daemon calls Check() every diskCheckInterval (a test calls it
// directly, with an Env whose GetFsStats is faked).
//
// Each directory (usage = 1 - free / total) is full from usage >= threshold
// until it falls below the low-water mark (hysteresis, so a bookie at the
// edge does not flap). A directory whose statistics cannot be read counts
// as full (fail safe) and is reported.
//
// The bookie is read-only while any journal directory is full, or every
// ledger directory is (BookKeeper's ledger-dirs manager: one full ledger
// directory is only skipped for new ledgers, see
// LedgerStorage::SetDirFull); warning while some directory is above the
// warn threshold or some ledger directory is full; writable otherwise:
//
//   kWritable --usage >= warn--> kWarning --journal or all ledger dirs
//       ^  <--usage < warn--------'            full--> kReadOnly
//       '------------- a ledger dir and every journal dir below lwm --'
//
// Built with one list of directories (the first constructor), every one
// of them counts as a journal directory: any full one makes it read-only.
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
  bool journal = false;  // a journal directory (else a ledger directory)
  bool full = false;     // at the threshold, or not yet back below the lwm
  double usage = 0;      // 0..1; 1 when unreadable
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
  // Ledger and journal directories apart (see above). DiskCheckResult::dirs
  // lists the ledger directories first, in this order, then the journal
  // directories.
  DiskChecker(Env* env, std::vector<std::string> ledger_dirs,
              std::vector<std::string> journal_dirs,
              DiskCheckerOptions options);

  DiskCheckResult Check();
  DiskState state() const { return state_.load(std::memory_order_acquire); }

 private:
  // Constant after construction.
  Env* const env_;
  const std::vector<std::string> dirs_;  // ledger dirs, then journal dirs
  const size_t ledger_dirs_;             // how many of dirs_ are ledger dirs
  const DiskCheckerOptions options_;

  // Touched by Check only (one thread at a time): which dirs are full.
  std::vector<bool> full_;

  // Own synchronisation (written by Check only).
  std::atomic<DiskState> state_{DiskState::kWritable};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DISK_CHECKER_H_
