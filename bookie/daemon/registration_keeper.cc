#include "bookie/daemon/registration_keeper.h"

#include <algorithm>
#include <utility>

namespace bk::bookie {

RegistrationKeeper::RegistrationKeeper(
    std::function<absl::Status()> register_fn, Options options, log::Logger log)
    : register_fn_(std::move(register_fn)),
      options_(options),
      log_(std::move(log)),
      thread_([this] { Run(); }) {}

RegistrationKeeper::~RegistrationKeeper() { Stop(); }

void RegistrationKeeper::Stop() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void RegistrationKeeper::RegisterAgain() {
  absl::MutexLock l(&mu_);
  wanted_ = true;
}

void RegistrationKeeper::Run() {
  absl::Duration backoff = options_.initial_backoff;
  absl::MutexLock l(&mu_);
  while (true) {
    mu_.Await(absl::Condition(
        +[](RegistrationKeeper* k) ABSL_EXCLUSIVE_LOCKS_REQUIRED(k->mu_) {
          return k->wanted_ || k->stop_;
        },
        this));
    if (stop_) return;
    wanted_ = false;
    mu_.Unlock();
    const absl::Status s = register_fn_();
    mu_.Lock();
    if (s.ok()) {
      if (backoff != options_.initial_backoff) {
        log_->info("registered again after {} failed attempts",
                   failures_.load(std::memory_order_relaxed));
      }
      backoff = options_.initial_backoff;
      continue;
    }
    failures_.fetch_add(1, std::memory_order_relaxed);
    log_->error("registration failed, not registered; retrying in {}: {}",
                absl::FormatDuration(backoff), s.ToString());
    // A stop ends the wait; a new request does not shorten it.
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), backoff)) return;
    wanted_ = true;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

}  // namespace bk::bookie
