// JournalFiles: the files of one journal directory, from the writer's side.
// Opens the next file (a fresh one, or with journalReuseFiles a recycled
// one), retires the files a checkpoint has passed, and leaves a recycled
// file without its old tail.
//
// Recycling (as BookKeeper's journalReuseFiles and RocksDB's
// recycle_log_file_num): a file the checkpoint has passed, beyond
// journalMaxBackups, is kept instead of removed, and the next roll reuses
// it. Its blocks are already allocated and written, so the journal's writes
// into it change no file size and no extent, and each group's fdatasync has
// only the data to flush. Order, so that a crash at any point leaves a
// journal that replays exactly what was acknowledged:
//   1. the new header (the new id, format 3) is written over the old one at
//      offset 0 and synced, while the file still has its old name, which is
//      below the checkpoint and so never replayed;
//   2. the file is renamed to the new id and the directory synced;
//   3. records follow the header. Past the last one written, the old
//      records carry the old id's salt (journal_format.h): the reader takes
//      them for a torn tail, which replay cuts.
// A recycled file left behind by a roll or Stop is cut to what was written
// in it (and the cut synced) first, because only the newest file may have a
// torn tail.
//
// Threads: Open and CutStaleTail on the journal thread; Retire on any (the
// checkpoint's); both take mu_ for the set of files kept for reuse.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_FILES_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_FILES_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/journal/aligned_group.h"
#include "bookie/journal/journal_options.h"
#include "bookie/journal/journal_stats.h"
#include "common/env.h"

namespace bk::bookie {

class JournalFiles {
 public:
  // Files kept for reuse at most; older ones are removed as before.
  static constexpr size_t kMaxRecyclable = 2;

  JournalFiles(Env* env, std::string dir, const JournalOptions& options,
               JournalCounters* counters);

  struct Opened {
    std::unique_ptr<WritableFile> file;  // positioned after the header
    uint64_t file_id = 0;
    bool recycled = false;
    // Length of the recycled file when taken: bytes past the write position
    // up to here are its old content.
    uint64_t old_length = 0;
  };
  // Makes file `file_id` the one to write: header written and synced, name
  // durable. Recycles a retired file when there is one (reuse_files). Uses
  // `aligned` as scratch for the direct header block.
  absl::StatusOr<Opened> Open(uint64_t file_id, AlignedGroup* aligned);

  // The checkpoint is at file `file_id`: older files beyond max_backups are
  // kept for reuse (up to kMaxRecyclable) or removed. Returns the first
  // removal error.
  absl::Status Retire(uint64_t file_id);

  // Before the journal leaves `opened` (roll, Stop): a recycled file longer
  // than what was written in it is cut to that, durably. The file must be
  // synced already. No-op for fresh files.
  absl::Status CutStaleTail(const Opened& opened);

 private:
  // A fresh file: direct when asked for and offered, else through the cache.
  absl::StatusOr<std::unique_ptr<WritableFile>> Create(const std::string& path);
  // Reopens retired file `old_id` without truncating it; NotFound or
  // Unimplemented tell the caller to create a fresh file instead.
  absl::StatusOr<std::unique_ptr<WritableFile>> Reopen(const std::string& path);
  void LogNoDirect(const absl::Status& why);

  Env* const env_;
  const std::string dir_;
  const JournalOptions options_;
  JournalCounters* const counters_;
  bool logged_no_direct_ = false;  // journal thread only

  absl::Mutex mu_;
  // reuse_files, until the Env turns out not to reopen files.
  bool can_reuse_ ABSL_GUARDED_BY(mu_);
  std::deque<uint64_t> recyclable_ ABSL_GUARDED_BY(mu_);  // oldest first
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_FILES_H_
