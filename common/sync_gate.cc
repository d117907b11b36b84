#include "common/sync_gate.h"

#include <utility>

namespace bk {

void SyncGate::Hold() {
  absl::MutexLock l(&mu_);
  holding_ = true;
}

void SyncGate::Release(int n, absl::Status result) {
  absl::MutexLock l(&mu_);
  permits_ += n;
  result_ = std::move(result);
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
  ++syncs_;
  auto may_pass = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return permits_ > 0 || !holding_;
  };
  mu_.Await(absl::Condition(&may_pass));
  if (!holding_) return absl::OkStatus();  // opened
  --permits_;
  return result_;
}

void SyncGate::Wrote() {
  absl::MutexLock l(&mu_);
  if (holding_) ++writes_;
}

}  // namespace bk
