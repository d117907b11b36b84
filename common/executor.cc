#include "common/executor.h"

#include "absl/synchronization/notification.h"
#include "common/thread_name.h"

namespace bk {

Executor::Executor() {
  thread_ = std::thread([this] {
    SetThreadName("bk-executor");
    Loop();
  });
  thread_id_ = thread_.get_id();
}

Executor::~Executor() { Shutdown(); }

void Executor::Post(Task task) {
  PostAfter(absl::ZeroDuration(), std::move(task));
}

void Executor::PostAfter(absl::Duration delay, Task task) {
  {
    absl::MutexLock lock(&mu_);
    if (!stopped_) {
      // While stopping, delays are ignored so that shutdown is bounded.
      absl::Time due = stopping_ ? absl::InfinitePast() : absl::Now() + delay;
      tasks_.emplace(std::make_pair(due, next_seq_++), std::move(task));
      return;
    }
  }
  task();  // after shutdown: run inline rather than lose it
}

bool Executor::InExecutorThread() const {
  return std::this_thread::get_id() == thread_id_;
}

void Executor::Drain() {
  absl::Notification done;
  Post([&done] { done.Notify(); });
  done.WaitForNotification();
}

void Executor::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  thread_.join();
}

void Executor::Loop() {
  for (;;) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      for (;;) {
        if (!tasks_.empty()) {
          auto first = tasks_.begin();
          if (stopping_ || first->first.first <= absl::Now()) {
            task = std::move(first->second);
            tasks_.erase(first);
            break;
          }
          // Wake at the due time, on shutdown, or when an earlier task
          // arrives.
          const auto key = first->first;
          auto changed = [this, key]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
            return stopping_ || tasks_.begin()->first < key;
          };
          mu_.AwaitWithDeadline(absl::Condition(&changed), key.first);
          continue;
        }
        if (stopping_) {
          stopped_ = true;
          return;
        }
        // Woken by a post (the queue changes) or by Shutdown.
        auto has_work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return !tasks_.empty() || stopping_;
        };
        mu_.Await(absl::Condition(&has_work));
      }
    }
    task();  // never under mu_
  }
}

}  // namespace bk
