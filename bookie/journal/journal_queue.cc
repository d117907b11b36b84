#include "bookie/journal/journal_queue.h"

#include <utility>

namespace bk::bookie {

bool JournalQueue::Push(JournalItem&& item) {
  absl::MutexLock l(&mu_);
  if (closed_) return false;
  pending_.push_back(std::move(item));
  depth_.fetch_add(1, std::memory_order_relaxed);
  // The consumer only waits on an empty queue.
  if (pending_.size() == 1) cv_.Signal();
  return true;
}

bool JournalQueue::TakeAll(std::vector<JournalItem>* out,
                           absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  if (pending_.empty() && !closed_ && timeout > absl::ZeroDuration()) {
    const absl::Time deadline = timeout == absl::InfiniteDuration()
                                    ? absl::InfiniteFuture()
                                    : absl::Now() + timeout;
    while (pending_.empty() && !closed_) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
    }
  }
  out->swap(pending_);
  depth_.fetch_sub(out->size(), std::memory_order_relaxed);
  return closed_;
}

void JournalQueue::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
  cv_.SignalAll();
}

}  // namespace bk::bookie
