#include "common/deadline_timer.h"

namespace bk {

DeadlineTimer::DeadlineTimer() : thread_([this] { Run(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
    pending_.clear();
    deadline_of_.clear();
  }
  thread_.join();
}

uint64_t DeadlineTimer::Schedule(absl::Time deadline,
                                 std::function<void()> fn) {
  absl::MutexLock l(&mu_);
  const uint64_t id = next_id_++;
  pending_.emplace(std::make_pair(deadline, id), std::move(fn));
  deadline_of_[id] = deadline;
  return id;
}

bool DeadlineTimer::Cancel(uint64_t id) {
  absl::MutexLock l(&mu_);
  auto it = deadline_of_.find(id);
  if (it == deadline_of_.end()) return false;
  pending_.erase({it->second, id});
  deadline_of_.erase(it);
  return true;
}

void DeadlineTimer::Run() {
  absl::MutexLock l(&mu_);
  while (!stop_) {
    if (pending_.empty()) {
      mu_.Await(absl::Condition(
          +[](DeadlineTimer* t) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return t->stop_ || !t->pending_.empty();
          },
          this));
      continue;
    }
    auto first = pending_.begin();
    const absl::Time due = first->first.first;
    if (absl::Now() < due) {
      // Wakes early when an earlier deadline is scheduled or on stop.
      struct Arg {
        DeadlineTimer* t;
        std::pair<absl::Time, uint64_t> key;
      } arg{this, first->first};
      mu_.AwaitWithDeadline(absl::Condition(
                                +[](Arg* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                  return a->t->stop_ ||
                                         a->t->pending_.empty() ||
                                         a->t->pending_.begin()->first < a->key;
                                },
                                &arg),
                            due);
      continue;
    }
    std::function<void()> fn = std::move(first->second);
    deadline_of_.erase(first->first.second);
    pending_.erase(first);
    mu_.Unlock();
    fn();
    mu_.Lock();
  }
}

}  // namespace bk
