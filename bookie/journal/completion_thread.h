// CompletionThread: runs the callbacks of finished journal groups, in the
// order the groups were handed in, on its own thread, with no journal lock
// held. The journal thread never runs a large group's callbacks, and no
// callback blocks on the network (the bookie's answers are queued writes).
//
// SubmitOrRun lets the thread that finished a group (a sync thread, or the
// journal thread for a lone group it synced itself) run a small group's
// callbacks itself when this thread has nothing queued or running: at low
// rates that saves a thread wake-up per group (each one a VM exit on a
// virtual machine) without reordering anything, since groups are handed
// in one at a time, in their turn.
//
// It also keeps the pool of emptied item vectors that the journal thread
// reuses (GetSpare), so steady-state operation allocates nothing.
//
// Given an Env and an observer, it reports how long each batch submitted
// with a ready time waited for its callbacks to start
// (JournalObserver::OnCallbacks).
//
// Lifecycle: constructed, then Start(); Stop() runs every batch already
// submitted and joins. Submit after Stop is a programming error.

#ifndef BK_BOOKIE_JOURNAL_COMPLETION_THREAD_H_
#define BK_BOOKIE_JOURNAL_COMPLETION_THREAD_H_

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "bookie/journal/journal_queue.h"
#include "bookie/journal/journal_stats.h"
#include "common/env.h"

namespace bk::bookie {

class CompletionThread {
 public:
  CompletionThread() = default;
  // `env` and `observer` may be null (nothing reported); both must outlive
  // this object.
  CompletionThread(Env* env, JournalObserver* observer)
      : env_(env), observer_(observer) {}
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;

  void Start();
  // Completes every item of `batch` with `status`, later, on this thread.
  // `ready_nanos` (the Env's monotonic clock; 0: not timed) is when the
  // batch became ready: its wait from then is reported.
  void Submit(std::vector<JournalItem>&& batch, absl::Status status,
              int64_t ready_nanos = 0);
  // Completes `batch` on the calling thread, before returning, when it has
  // at most kMaxInlineItems items and nothing submitted earlier is queued or
  // running; otherwise as Submit. For a caller that is the only one to
  // submit (so order holds) and holds no lock a callback may need.
  // Returns true when it ran the callbacks itself.
  bool SubmitOrRun(std::vector<JournalItem>&& batch, absl::Status status,
                   int64_t ready_nanos = 0);
  static constexpr size_t kMaxInlineItems = 64;
  // An empty vector, with capacity when one has been recycled.
  std::vector<JournalItem> GetSpare();
  // Returns an unused (empty) vector to the pool.
  void Recycle(std::vector<JournalItem>&& v);
  void Stop();

 private:
  struct Batch {
    std::vector<JournalItem> items;
    absl::Status status;
    int64_t ready_nanos = 0;
  };
  void Run();
  // Runs the callbacks and recycles the vector. No lock held.
  void Complete(Batch* batch);

  Env* const env_ = nullptr;
  JournalObserver* const observer_ = nullptr;
  absl::Mutex mu_;
  std::deque<Batch> batches_ ABSL_GUARDED_BY(mu_);
  // A batch's callbacks are running (on this thread or a SubmitOrRun
  // caller's).
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::vector<JournalItem>> spares_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::thread thread_;  // touched by Start/Stop only
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_COMPLETION_THREAD_H_
