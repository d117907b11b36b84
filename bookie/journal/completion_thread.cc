#include "bookie/journal/completion_thread.h"

#include <utility>

#include "common/thread_name.h"

namespace bk::bookie {

namespace {
// Spare vectors kept: about as many as groups in flight (64 of 512 KiB at
// 32 MiB of adds in flight), so that steady traffic allocates none.
constexpr size_t kMaxSpares = 64;
}  // namespace

CompletionThread::~CompletionThread() { Stop(); }

void CompletionThread::Start() {
  thread_ = std::thread([this] {
    SetThreadName("bk-jcomplete");
    Run();
  });
}

void CompletionThread::Submit(std::vector<JournalItem>&& batch,
                              absl::Status status, int64_t ready_nanos) {
  absl::MutexLock l(&mu_);
  batches_.push_back(Batch{std::move(batch), std::move(status), ready_nanos});
}

bool CompletionThread::SubmitOrRun(std::vector<JournalItem>&& batch,
                                   absl::Status status, int64_t ready_nanos) {
  {
    absl::MutexLock l(&mu_);
    if (batch.size() > kMaxInlineItems || !batches_.empty() || running_) {
      batches_.push_back(
          Batch{std::move(batch), std::move(status), ready_nanos});
      return false;
    }
    running_ = true;  // the completion thread waits for the next batch
  }
  Batch b{std::move(batch), std::move(status), ready_nanos};
  Complete(&b);
  absl::MutexLock l(&mu_);
  running_ = false;
  return true;
}

std::vector<JournalItem> CompletionThread::GetSpare() {
  absl::MutexLock l(&mu_);
  if (spares_.empty()) return {};
  std::vector<JournalItem> v = std::move(spares_.back());
  spares_.pop_back();
  return v;
}

void CompletionThread::Recycle(std::vector<JournalItem>&& v) {
  v.clear();
  absl::MutexLock l(&mu_);
  if (spares_.size() < kMaxSpares) spares_.push_back(std::move(v));
}

void CompletionThread::Stop() {
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void CompletionThread::Run() {
  while (true) {
    Batch batch;
    {
      absl::MutexLock l(&mu_);
      // Not while a SubmitOrRun caller runs a batch: the next one waits
      // behind it.
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !running_ && (!batches_.empty() || stopping_);
      };
      mu_.Await(absl::Condition(&ready));
      if (batches_.empty()) return;  // stopping and drained
      batch = std::move(batches_.front());
      batches_.pop_front();
      running_ = true;
    }
    Complete(&batch);
    absl::MutexLock l(&mu_);
    running_ = false;
  }
}

void CompletionThread::Complete(Batch* batch) {
  if (observer_ != nullptr && env_ != nullptr && batch->ready_nanos > 0 &&
      batch->status.ok()) {
    observer_->OnCallbacks(JournalCallbackEvent{
        batch->items.size(), env_->NowMonotonicNanos() - batch->ready_nanos});
  }
  // No lock held: callbacks may call back into the journal.
  for (JournalItem& item : batch->items) {
    item.done(batch->status);
  }
  // Drops the payload owners here, off the journal thread.
  Recycle(std::move(batch->items));
}

}  // namespace bk::bookie
