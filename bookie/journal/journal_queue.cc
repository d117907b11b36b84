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

bool JournalQueue::PushAll(std::vector<JournalItem>* items) {
  if (items->empty()) return true;
  const size_t n = items->size();
  absl::MutexLock l(&mu_);
  if (closed_) return false;
  const bool was_empty = pending_.empty();
  if (was_empty) {
    pending_.swap(*items);  // keeps the capacity of both vectors in use
  } else {
    for (JournalItem& item : *items) pending_.push_back(std::move(item));
  }
  items->clear();
  depth_.fetch_add(n, std::memory_order_relaxed);
  // The consumer only waits on an empty queue.
  if (was_empty) cv_.Signal();
  return true;
}

bool JournalQueue::TakeAll(std::vector<JournalItem>* out,
                           absl::Duration timeout, bool wake_on_nudge) {
  absl::MutexLock l(&mu_);
  if (pending_.empty() && !closed_ && timeout > absl::ZeroDuration() &&
      !(wake_on_nudge && nudged_)) {
    const absl::Time deadline = timeout == absl::InfiniteDuration()
                                    ? absl::InfiniteFuture()
                                    : absl::Now() + timeout;
    nudge_waiter_ = wake_on_nudge;
    while (pending_.empty() && !closed_ && !(wake_on_nudge && nudged_)) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
    }
    nudge_waiter_ = false;
  }
  nudged_ = false;
  out->swap(pending_);
  depth_.fetch_sub(out->size(), std::memory_order_relaxed);
  return closed_;
}

void JournalQueue::Nudge() {
  absl::MutexLock l(&mu_);
  nudged_ = true;  // for a TakeAll that has not started waiting yet
  if (nudge_waiter_) cv_.Signal();
}

void JournalQueue::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
  cv_.SignalAll();
}

}  // namespace bk::bookie
