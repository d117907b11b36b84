// JournalWriter: the journal of one directory. Producers Add() records; one
// journal thread groups them and writes each group with one writev; a
// SyncThread fdatasyncs what has been written (one sync for every group
// written while the previous sync ran, so writes and syncs overlap; with
// max_syncs_in_flight > 1 such groups get a sync of their own beside the
// running one) and hands the groups, in order, to a CompletionThread that
// runs the callbacks.
//
// Durability words: an add's callback gets OK only after the group holding
// its record was written and synced (just written when journalSyncData is
// false). A group is synced when it reaches buffered_writes_threshold_bytes
// or buffered_entries_threshold (the record that reaches it ends the group;
// records queued behind it start the next), when its oldest add has waited
// max_group_wait, when the queue is empty (flush_when_queue_empty), when
// the queue is empty and a sync could start at once (adaptive_group_commit),
// or at
// Stop.
//
// Failure is sticky: after a failed write, sync, or file creation, the
// writer never touches the file again; the failing group and every add
// after it completes with the error (Add itself returns it once the failure
// is known), status() says why. There is no way back but a restart, whose
// replay decides what is on disk.
//
// Lifecycle: construct, Start(), Add()..., Stop() (or destroy). Stop drains:
// every accepted add is written, synced and completed before it returns.
// Threads: Add, WrittenPosition, Checkpoint, status and AddStatsTo may be
// called from any thread. Callbacks run on the completion thread (or, for
// a small group while that thread is idle, on the thread that synced it:
// one wake-up fewer per group at low rates; completion_thread.h) and may
// call Add. A lone small group is synced on the journal thread itself when
// nothing else is being synced (adaptive_group_commit, SyncThread::
// SyncHere), so the journal thread may run callbacks too.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_WRITER_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_WRITER_H_

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "bookie/journal/aligned_group.h"
#include "bookie/journal/completion_thread.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_files.h"
#include "bookie/journal/journal_options.h"
#include "bookie/journal/journal_queue.h"
#include "bookie/journal/journal_stats.h"
#include "bookie/journal/sync_thread.h"
#include "common/env.h"

namespace bk::bookie {

class JournalWriter {
 public:
  // `first_file_id` must be greater than any journal file id in `dir`;
  // `checkpoint` is the mark persisted there (from replay).
  JournalWriter(Env* env, std::string dir, const JournalOptions& options,
                uint64_t first_file_id, JournalPosition checkpoint);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Creates the first file durably (header synced, directory synced) and
  // starts the threads.
  absl::Status Start();

  // Queues one record. OK: `done` will be called exactly once. Not OK
  // (stopped, failed, payload too large): `done` is dropped uncalled.
  absl::Status Add(journal_format::RecordType type, uint64_t ledger_id,
                   int64_t entry_id, JournalPayload payload,
                   JournalCallback done);

  // Queues the records in order, with one queue lock and one clock read
  // for all. All or nothing: OK moves every record's payload and `done`
  // into the journal (each `done` called exactly once, later); not OK
  // (stopped, failed, a record invalid) leaves *records untouched.
  absl::Status AddBatch(std::vector<JournalRecord>* records);

  // The end of the records written so far (not necessarily synced).
  JournalPosition WrittenPosition() const;

  // Persists `position` as this directory's checkpoint and removes the
  // files wholly before it, keeping max_backups of them. A position at or
  // before the current checkpoint is a no-op. InvalidArgument if it is past
  // WrittenPosition(). Safe to call concurrently with adds.
  absl::Status Checkpoint(JournalPosition position);

  void Stop();

  // OK while healthy; the sticky error after a failure.
  absl::Status status() const;
  void AddStatsTo(JournalStats* stats) const;
  const std::string& dir() const { return dir_; }

 private:
  void Run();
  // Add's and AddBatch's checks of the writer's state and of one record.
  absl::Status CheckAccepting() const;
  static absl::Status CheckRecord(journal_format::RecordType type,
                                  size_t payload_size);
  // Writes `group` and hands it to the sync thread (to the completion
  // thread when journalSyncData is false). `sync_here`: the group was cut
  // because nothing else waited and the sync stage was idle; a small one is
  // then synced on this thread.
  void CommitGroup(std::vector<JournalItem>* group, uint64_t bytes,
                   bool sync_here);
  // Sets `timing` when the write succeeded.
  absl::Status WriteGroup(const std::vector<JournalItem>& group, uint64_t bytes,
                          GroupWriteTiming* timing);
  // Makes file `file_id` (fresh or recycled, journal_files.h) current.
  absl::Status OpenNewFile(uint64_t file_id);
  WritableFile* file() const { return current_.file.get(); }
  // Writes `group` with one writev of the callers' buffers.
  // `bytes`: the group's record bytes (headers and payloads).
  absl::Status AppendIov(const std::vector<JournalItem>& group, uint64_t bytes);
  // (direct_io) Copies `group` into aligned_, padded; the view is valid
  // until aligned_ is next reset.
  absl::string_view BuildImage(const std::vector<JournalItem>& group,
                               uint64_t bytes);
  absl::Status RollIfFull(uint64_t next_bytes);
  void Fail(const absl::Status& s);

  // Constant after construction.
  Env* const env_;
  const std::string dir_;
  const JournalOptions options_;
  const uint64_t first_file_id_;

  // Journal thread only (Start, then Run).
  JournalFiles::Opened current_;  // the file being written
  uint32_t salt_ = 0;             // of current_'s records (journal_format.h)
  uint64_t preallocated_end_ = 0;
  bool file_unsynced_ = false;
  std::vector<struct iovec> iov_;
  std::vector<journal_format::RecordHeader> salted_;  // AppendIov's headers
  journal_format::RecordHeader pad_header_;  // AppendIov's padding record
  static constexpr size_t kPageBytes = 4096;
  AlignedGroup aligned_{kDirectIoAlignment};  // when options_.direct_io

  // Spare item vectors for AddBatch (callers' threads).
  absl::Mutex batch_mu_;
  std::vector<std::vector<JournalItem>> batch_spares_
      ABSL_GUARDED_BY(batch_mu_);

  mutable absl::Mutex status_mu_;
  absl::Status status_ ABSL_GUARDED_BY(status_mu_);

  mutable absl::Mutex position_mu_;
  JournalPosition written_ ABSL_GUARDED_BY(position_mu_);

  absl::Mutex checkpoint_mu_;
  JournalPosition checkpoint_ ABSL_GUARDED_BY(checkpoint_mu_);

  absl::Mutex lifecycle_mu_;
  bool started_ ABSL_GUARDED_BY(lifecycle_mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(lifecycle_mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(lifecycle_mu_);

  // Own synchronisation.
  std::atomic<bool> failed_{false};
  std::atomic<bool> accepting_{false};  // between Start and Stop
  JournalQueue queue_;
  JournalCounters counters_;
  JournalFiles files_;  // after counters_, which it uses
  CompletionThread completion_;
  SyncThread sync_;  // after completion_ and counters_, which it uses
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_WRITER_H_
