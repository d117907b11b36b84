// DeadlineTimer: runs callbacks at deadlines on one thread of its own (long
// poll timeouts). A callback may be cancelled until it has started.
//
// Lifecycle: the thread starts in the constructor; the destructor cancels
// every pending callback without running it and joins the thread.
// Thread-safety: Schedule and Cancel may be called from any thread,
// including from a callback.

#ifndef BK_COMMON_DEADLINE_TIMER_H_
#define BK_COMMON_DEADLINE_TIMER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bk {

class DeadlineTimer {
 public:
  DeadlineTimer();
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Runs `fn` at `deadline` (at once if it has passed). Returns an id for
  // Cancel.
  uint64_t Schedule(absl::Time deadline, std::function<void()> fn);
  // True if the callback was pending and now never runs.
  bool Cancel(uint64_t id);

 private:
  void Run();

  absl::Mutex mu_;
  // (deadline, id) -> callback, earliest first.
  std::map<std::pair<absl::Time, uint64_t>, std::function<void()>> pending_
      ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, absl::Time> deadline_of_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // started last in the constructor
};

}  // namespace bk

#endif  // BK_COMMON_DEADLINE_TIMER_H_
