// Journal: the bookie's write-ahead log over one or more directories.
//
// Every add the bookie acknowledges is first made durable here: the storage
// puts the entry in its write cache, then Add()s a record; the record's
// callback says when it is safe to answer the client. Ledger L goes to
// directory L % dirs.size(), each with its own file, journal thread and
// completion thread (journal_writer.h), so one device's sync never
// serialises another's.
//
// Lifecycle:
//   Journal j(env, options);
//   auto report = j.Replay(fn);   // once: records since the checkpoint
//   j.Start();                    // new file per dir, threads running
//   j.Add(...) ...                // from any thread
//   mark = j.CurrentMark();       // storage: before its flush begins
//   j.Checkpoint(mark);           // storage: after the flush is durable
//   j.Stop();                     // drains, syncs, completes every add
//
// Checkpoint contract. The storage must (1) insert an entry into its write
// cache before Add()ing it, and (2) take the mark before it swaps out the
// write-cache buffer that it then flushes. A record before the mark was
// written before the mark was taken, so its entry was in the cache before
// the swap and is in the flushed buffer (or an earlier one). Records after
// the mark are replayed on restart; replaying an entry the storage already
// holds must be harmless (it is: same ledger, entry id and bytes).
//
// Durability and failure: see journal_writer.h. Healthy() turns false for
// good after the first failed write or sync in any directory; the bookie
// must then stop taking adds (status() says why).

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_options.h"
#include "bookie/journal/journal_queue.h"
#include "bookie/journal/journal_replay.h"
#include "bookie/journal/journal_stats.h"
#include "bookie/journal/journal_writer.h"
#include "common/env.h"

namespace bk::bookie {

// A position in every journal directory, in the order of options.dirs.
struct JournalMark {
  std::vector<JournalPosition> positions;
};

struct JournalReplayReport {
  std::vector<JournalDirReplay> dirs;  // in the order of options.dirs
  uint64_t records = 0;
  uint64_t torn_bytes_cut = 0;
  uint64_t skipped_ranges = 0;  // corrupt ranges skipped (skip option)
};

class Journal {
 public:
  // `env` is not owned and must outlive the Journal.
  Journal(Env* env, JournalOptions options);
  ~Journal();  // Stop()
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Replays every directory from its checkpoint into `fn` (directories in
  // order; within one, records in the order they were written) and cuts torn
  // tails. Errors: InvalidArgument (options), DataLoss (corruption, start
  // must be refused), FailedPrecondition (called twice, or an unknown
  // format version), I/O errors, or `fn`'s error.
  absl::StatusOr<JournalReplayReport> Replay(const JournalReplayFn& fn);

  // Opens a new file in every directory and starts the threads.
  // REQUIRES: Replay() succeeded.
  absl::Status Start();

  // Journals one record of ledger `ledger_id`; see JournalWriter::Add.
  absl::Status Add(journal_format::RecordType type, uint64_t ledger_id,
                   int64_t entry_id, JournalPayload payload,
                   JournalCallback done);

  // Journals a batch of records whose ledgers all map to one directory
  // (DirIndexFor): see JournalWriter::AddBatch (all or nothing; on error
  // *records is untouched and no `done` will be called).
  absl::Status AddBatch(std::vector<JournalRecord>* records);

  // Where every directory has written up to now. REQUIRES: started.
  JournalMark CurrentMark() const;

  // Persists `mark` (from CurrentMark) as the checkpoint and removes old
  // files; see the contract above. Returns the first directory's error, after
  // trying all of them.
  absl::Status Checkpoint(const JournalMark& mark);

  // Drains, syncs and completes every accepted add; later adds fail.
  void Stop();

  bool Healthy() const { return status().ok(); }
  // The first directory's sticky error, or OK.
  absl::Status status() const;
  JournalStats Stats() const;

  size_t DirIndexFor(uint64_t ledger_id) const {
    return static_cast<size_t>(ledger_id % options_.dirs.size());
  }
  const JournalOptions& options() const { return options_; }

 private:
  // Constant after construction.
  Env* const env_;
  const JournalOptions options_;

  absl::Mutex mu_;
  bool replayed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<JournalDirReplay> replayed_dirs_ ABSL_GUARDED_BY(mu_);

  // Set by Start() before it returns, then constant until destruction; Add
  // and the others read it without a lock (REQUIRES: called after Start).
  std::vector<std::unique_ptr<JournalWriter>> writers_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_H_
