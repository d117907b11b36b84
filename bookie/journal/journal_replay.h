// Replay of one journal directory from its checkpoint, at start-up, before
// the directory's JournalWriter is created.
//
// Every valid record at or after the checkpoint is handed to the callback,
// file by file in id order, records in file order. Then the directory is
// made safe to write after:
//  - a torn tail in the newest file is cut (truncate + fsync), and a newest
//    file whose header never became valid is removed;
//  - a torn tail in an older file cannot come from a crash (files are synced
//    before the next one is created), so it is treated as corruption;
//  - corruption refuses the replay with DataLoss unless
//    skip_corrupt_records, in which case it is skipped and reported.
// A corrupt checkpoint file is reported and replay starts from the oldest
// file present: replaying records the storage already holds is harmless.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_REPLAY_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_REPLAY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"

namespace bk::bookie {

// Receives each replayed record; the view is valid during the call only. A
// non-OK return stops the replay and is returned from it.
using JournalReplayFn = std::function<absl::Status(const JournalRecordView&)>;

struct JournalDirReplay {
  std::string dir;
  JournalPosition checkpoint;      // where replay started
  std::string checkpoint_problem;  // non-empty: the mark was unreadable
  uint64_t next_file_id = 0;       // for the writer: above every file seen
  uint64_t records = 0;
  uint64_t payload_bytes = 0;
  uint64_t torn_bytes_cut = 0;
  std::vector<JournalFileReport> files;  // one per file read
};

absl::StatusOr<JournalDirReplay> ReplayJournalDir(
    Env* env, const std::string& dir, const JournalReaderOptions& options,
    const JournalReplayFn& fn);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_REPLAY_H_
