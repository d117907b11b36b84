// Offline reading of journal files for forensics (`bkctl readjournal`,
// `bkctl lastmark`): every record of a journal directory or file, with the
// directory's checkpoint, read with the bookie's own JournalFileReader.
//
// Unlike replay, a dump never stops at corruption and never changes a file:
// corrupt ranges are skipped and reported, a torn tail is reported and left
// in place. Run it on a stopped bookie's directories or on copies of them; a
// running bookie may be writing the newest file, whose tail then reads as
// torn.

#ifndef BK_BOOKIE_INSPECT_JOURNAL_DUMP_H_
#define BK_BOOKIE_INSPECT_JOURNAL_DUMP_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"

namespace bk::bookie::inspect {

struct JournalRecord {
  uint64_t file_id = 0;
  uint64_t offset = 0;
  // "entry", "fence", "masterkey", "explicitlac" or "force".
  std::string_view type;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::string_view payload;  // valid during the visit only
  // The record is before the directory's checkpoint: the ledger storage
  // already holds it, and replay would not read it again.
  bool checkpointed = false;
};

struct JournalFileDump {
  uint64_t file_id = 0;
  JournalFileReport report;  // records, valid_end, torn tail, skipped ranges
};

struct JournalDirDump {
  std::string dir;
  // The checkpoint ("lastMark"); nullopt with `checkpoint_error` set when
  // the file is unreadable or corrupt. {0, 0} when there is none yet.
  std::optional<JournalPosition> checkpoint;
  std::string checkpoint_error;
  std::vector<JournalFileDump> files;
};

using JournalVisitFn = std::function<void(const JournalRecord&)>;

// The checkpoint and journal files of `dir` (no records read).
absl::StatusOr<JournalDirDump> ListJournalDir(Env* env, const std::string& dir);

// Reads journal file `file_id` of `dir`, calling `visit` for every valid
// record (padding records are skipped, as replay skips them). NotFound when the
// file does not exist; FailedPrecondition for a format version this build
// does not know; the file's read error otherwise.
absl::StatusOr<JournalFileDump> DumpJournalFile(
    Env* env, const std::string& dir, uint64_t file_id,
    const std::optional<JournalPosition>& checkpoint,
    const JournalVisitFn& visit);

}  // namespace bk::bookie::inspect

#endif  // BK_BOOKIE_INSPECT_JOURNAL_DUMP_H_
