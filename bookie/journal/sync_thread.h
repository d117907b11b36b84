// SyncThread: the journal's force-write stage (BookKeeper's ForceWrite-
// Thread). The journal thread writes a group with one writev and hands it
// here; this thread fdatasyncs the file once for every group that queued up
// meanwhile and then hands those groups to the completion thread (or runs a
// small group's callbacks itself while that thread is idle). So the
// next group's write (a memory copy into the page cache) overlaps the
// previous group's sync (device time) instead of waiting behind it.
//
// A lone small group (adaptive group commit: nothing queued behind it, no
// sync waiting or running) is synced by the journal thread itself
// (SyncHere), in the same order and with the same failure handling: at low
// rates that saves the wake-up of this thread per group, and there is no
// write to overlap with its sync.
//
// Syncs in flight (journalMaxSyncsInFlight, 1 by default is BookKeeper's
// behaviour): with more than one, groups written while a sync runs get a
// sync of their own at once, on another thread, instead of waiting for
// the running one to end. An add written just after a sync started then
// waits about one sync, not the rest of that one plus its own. Batches
// complete in the order they were taken, whichever sync returns first.
//
// Durability: a group is handed in only after its write returned, and the
// sync that covers it starts after that, so when the completion thread runs
// its callbacks with OK every byte of the group is durable (WritableFile's
// contract: Sync covers every append that returned before it was called,
// also with several syncs at once).
//
// Failure: after the first failed sync the file is never synced again (no
// retry: the kernel may have dropped the dirty pages). That group, every
// group already waiting and every later one complete with the sticky error
// that `on_failure` returns; so does a batch taken before it whose own sync
// returned OK but whose turn to complete came after the failure was
// recorded (batches complete in order, each after all earlier ones).
//
// Threads: Submit, SyncHere and Drain from the journal thread; Stop from the
// owner after the journal thread has finished. The observer and `on_failure`
// are called by the sync threads one batch at a time, in order.

#ifndef BK_BOOKIE_JOURNAL_SYNC_THREAD_H_
#define BK_BOOKIE_JOURNAL_SYNC_THREAD_H_

#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "bookie/journal/completion_thread.h"
#include "bookie/journal/journal_queue.h"
#include "bookie/journal/journal_stats.h"
#include "common/env.h"

namespace bk::bookie {

// How a group was written, on the Env's monotonic clock.
struct GroupWriteTiming {
  int64_t queue_nanos = 0;  // its oldest record queued -> its write started
  int64_t write_nanos = 0;  // the write
  int64_t written_at = 0;   // when the write returned
};

class SyncThread {
 public:
  // Records a failed sync and returns the sticky status every affected add
  // completes with.
  using FailFn = absl::AnyInvocable<absl::Status(const absl::Status&)>;

  // None owned; all must outlive this object. `idle_nudge` (may be null)
  // is nudged whenever this thread has synced everything submitted.
  // `drop_synced_pages`: after each successful sync the bytes it made
  // durable are dropped from the page cache (journalRemoveFromPageCache).
  // `max_in_flight` (>= 1): syncs that may run at once, one thread each.
  SyncThread(Env* env, CompletionThread* completion, JournalCounters* counters,
             JournalObserver* observer, FailFn on_failure,
             JournalQueue* idle_nudge = nullptr, bool drop_synced_pages = false,
             int max_in_flight = 1);
  ~SyncThread();  // Stop()
  SyncThread(const SyncThread&) = delete;
  SyncThread& operator=(const SyncThread&) = delete;

  void Start();

  // `items` (`bytes` in all) were written to `file` as `timing` says; sync
  // them and complete them. `file` must stay open until Drain() returns.
  // A group whose write failed comes with that error (`write_status`) and is
  // completed with it, in order, without a sync.
  void Submit(WritableFile* file, std::vector<JournalItem>&& items,
              uint64_t bytes, GroupWriteTiming timing,
              absl::Status write_status);

  // Syncs and completes a small group (at most
  // CompletionThread::kMaxInlineItems) on the caller's thread when no sync
  // is waiting or running, as if it had been submitted: the same order,
  // failure handling and observer. At low rates that saves the wake-up of a
  // sync thread per group (a VM exit here) and loses no overlap, since
  // there is nothing to overlap. False, with nothing moved, otherwise.
  // From the journal thread only.
  bool SyncHere(WritableFile* file, std::vector<JournalItem>* items,
                uint64_t bytes, GroupWriteTiming timing);

  // Waits until every submitted group has been synced (or failed) and
  // handed to the completion thread. The journal thread calls it before it
  // closes a file.
  void Drain();

  // A group written now would have its sync started at once: nothing
  // submitted is waiting, and fewer than max_in_flight syncs run. With one
  // sync in flight: nothing is waiting for or in a sync.
  bool Idle();

  // Drains and joins.
  void Stop();

 private:
  struct Written {
    WritableFile* file;
    std::vector<JournalItem> items;
    uint64_t bytes;
    GroupWriteTiming timing;
    absl::Status write_status;
  };
  // A run of groups of one file, synced once. A batch spans files only if
  // the journal rolled without draining, which it does not; belt and braces.
  struct Run {
    size_t begin;
    size_t end;
    uint64_t covered;  // the file's size when the batch was taken
    absl::Status sync_status;
    int64_t sync_start = 0;
    int64_t synced_at = 0;
    bool synced = false;
  };
  void Loop();
  // Takes a ticket for `batch` and splits it into runs of one file each;
  // `failed` gets the sticky failure as it is when the batch is taken.
  uint64_t TakeTicket(std::vector<Written>* batch, std::vector<Run>* runs,
                      absl::Status* failed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Syncs a taken batch, waits for its turn, completes it and ends its turn.
  // True when nothing was left pending after it.
  bool RunBatch(std::vector<Written>* batch, std::vector<Run>* runs,
                uint64_t ticket, const absl::Status& failed);
  // Syncs each run of `batch` once (unless `failed` already).
  void Sync(std::vector<Written>* batch, std::vector<Run>* runs,
            const absl::Status& failed);
  // In the batch's turn: records a failed sync and completes every group.
  void Complete(std::vector<Written>* batch, std::vector<Run>* runs);
  // Drops `file`'s pages synced since the last call (drop_synced_pages_).
  void DropSynced(WritableFile* file, uint64_t covered);

  Env* const env_;
  CompletionThread* const completion_;
  JournalCounters* const counters_;
  JournalObserver* const observer_;
  FailFn on_failure_;  // in a batch's turn only
  JournalQueue* const idle_nudge_;
  const bool drop_synced_pages_;
  const int max_in_flight_;

  absl::Mutex mu_;
  std::deque<Written> pending_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;  // batches taken, not completed
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;  // the next batch taken
  uint64_t turn_ ABSL_GUARDED_BY(mu_) = 0;  // the batch that completes next
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The sticky failure: set in a batch's turn, read when a batch is taken.
  absl::Status failed_ ABSL_GUARDED_BY(mu_);

  // In a batch's turn only (turns hand over through mu_). The file whose
  // synced pages were last dropped, and up to where (a page boundary: a
  // page still being filled is dropped with the next sync).
  const WritableFile* dropped_file_ = nullptr;
  uint64_t dropped_to_ = 0;

  // SyncHere's, kept for their capacity (journal thread only).
  std::vector<Written> here_batch_;
  std::vector<Run> here_runs_;

  std::vector<std::thread> threads_;  // Start/Stop only
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_SYNC_THREAD_H_
