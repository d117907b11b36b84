#include "common/sync_gate.h"

#include <utility>

namespace bk {

void SyncGate::Hold() {
  absl::MutexLock l(&mu_);
  holding_ = true;
}

void SyncGate::Release(int n, absl::Status result) {
  absl::MutexLock l(&mu_);
  for (int i = 0; i < n; ++i) permits_.push_back(result);
}

void SyncGate::ReleaseSync(int ticket, absl::Status result) {
  absl::MutexLock l(&mu_);
  chosen_[ticket] = std::move(result);
}

void SyncGate::Open() {
  absl::MutexLock l(&mu_);
  holding_ = false;
}

bool SyncGate::AwaitSyncs(int n, absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  auto reached = [this, n]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return syncs_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

bool SyncGate::AwaitWrites(int n, absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return writes_ >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

int SyncGate::syncs() const {
  absl::MutexLock l(&mu_);
  return syncs_;
}

absl::Status SyncGate::Pass() {
  absl::MutexLock l(&mu_);
  if (!holding_) return absl::OkStatus();
  const int ticket = syncs_++;
  waiting_.insert(ticket);
  // A chosen permit for this ticket, or a permit in line when it is the
  // oldest held sync.
  auto may_pass = [this, ticket]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !holding_ || chosen_.contains(ticket) ||
           (!permits_.empty() && *waiting_.begin() == ticket);
  };
  mu_.Await(absl::Condition(&may_pass));
  waiting_.erase(ticket);
  if (auto it = chosen_.find(ticket); it != chosen_.end()) {
    absl::Status result = std::move(it->second);
    chosen_.erase(it);
    return holding_ ? result : absl::OkStatus();
  }
  if (!holding_) return absl::OkStatus();  // opened
  absl::Status result = std::move(permits_.front());
  permits_.pop_front();
  return result;
}

void SyncGate::Wrote() {
  absl::MutexLock l(&mu_);
  if (holding_) ++writes_;
}

}  // namespace bk
