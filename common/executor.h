// Executor: one thread that runs posted tasks in order, and delayed tasks at
// (or after) their due time.
//
// Thread-safe. Post and PostAfter never block on a running task, so they may
// be called from any thread, including ZooKeeper's client threads and the
// executor's own thread. Shutdown runs everything still queued (delayed tasks
// at once, ignoring their delay), including tasks those tasks post, then
// joins the thread; a task posted after Shutdown returned is run inline on
// the posting thread so that no callback is ever lost.

#ifndef BK_COMMON_EXECUTOR_H_
#define BK_COMMON_EXECUTOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bk {

class Executor {
 public:
  using Task = absl::AnyInvocable<void()>;

  Executor();
  ~Executor();  // Shutdown()
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  void Post(Task task);
  void PostAfter(absl::Duration delay, Task task);

  // True when called from this executor's thread.
  bool InExecutorThread() const;

  // Waits until every task posted before this call has run. Must not be
  // called from the executor's thread.
  void Drain();

  void Shutdown();

 private:
  void Loop();

  mutable absl::Mutex mu_;
  // Due time, then a sequence number so that equal times keep post order.
  std::map<std::pair<absl::Time, uint64_t>, Task> tasks_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;

  // Constant after construction.
  std::thread thread_;
  std::thread::id thread_id_;
};

}  // namespace bk

#endif  // BK_COMMON_EXECUTOR_H_
