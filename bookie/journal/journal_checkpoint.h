// Journal positions and the persisted checkpoint of one journal directory.
//
// A JournalPosition names a record boundary: `offset` bytes into journal
// file `file_id`. The checkpoint says "every record before this position is
// durable in the ledger storage", so replay starts there and older files may
// be removed.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_CHECKPOINT_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_CHECKPOINT_H_

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/env.h"

namespace bk::bookie {

struct JournalPosition {
  uint64_t file_id = 0;
  uint64_t offset = 0;
  friend auto operator<=>(const JournalPosition&,
                          const JournalPosition&) = default;
};

// The checkpoint in `dir`: {0, 0} when there is none yet (replay from the
// first file); DataLoss when the file exists but is not a valid mark.
absl::StatusOr<JournalPosition> ReadCheckpoint(Env* env,
                                               const std::string& dir);

// Replaces the checkpoint atomically and durably (temp, fsync, rename,
// fsync dir).
absl::Status WriteCheckpoint(Env* env, const std::string& dir,
                             JournalPosition position);

// The journal files of `dir` as sorted ids; other names are ignored.
absl::StatusOr<std::vector<uint64_t>> ListJournalFiles(Env* env,
                                                       const std::string& dir);

std::string JournalFilePath(const std::string& dir, uint64_t file_id);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_CHECKPOINT_H_
