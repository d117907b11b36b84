#include "bookie/journal/sync_thread.h"

#include <algorithm>
#include <utility>

#include "common/thread_name.h"

namespace bk::bookie {

SyncThread::SyncThread(Env* env, CompletionThread* completion,
                       JournalCounters* counters, JournalObserver* observer,
                       FailFn on_failure, JournalQueue* idle_nudge,
                       bool drop_synced_pages)
    : env_(env),
      completion_(completion),
      counters_(counters),
      observer_(observer),
      on_failure_(std::move(on_failure)),
      idle_nudge_(idle_nudge),
      drop_synced_pages_(drop_synced_pages) {}

SyncThread::~SyncThread() { Stop(); }

void SyncThread::Start() {
  thread_ = std::thread([this] {
    SetThreadName("bk-jsync");
    Run();
  });
}

void SyncThread::Submit(WritableFile* file, std::vector<JournalItem>&& items,
                        uint64_t bytes, GroupWriteTiming timing,
                        absl::Status write_status) {
  absl::MutexLock l(&mu_);
  pending_.push_back(
      Written{file, std::move(items), bytes, timing, std::move(write_status)});
}

void SyncThread::Drain() {
  absl::MutexLock l(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return pending_.empty() && !busy_;
  };
  mu_.Await(absl::Condition(&idle));
}

bool SyncThread::Idle() {
  absl::MutexLock l(&mu_);
  return pending_.empty() && !busy_;
}

void SyncThread::Stop() {
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void SyncThread::Run() {
  std::vector<Written> batch;
  while (true) {
    {
      absl::MutexLock l(&mu_);
      busy_ = false;
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !pending_.empty() || stopping_;
      };
      mu_.Await(absl::Condition(&ready));
      if (pending_.empty()) return;  // stopping and drained
      // Everything written so far: one sync covers it all.
      for (Written& w : pending_) batch.push_back(std::move(w));
      pending_.clear();
      busy_ = true;
    }
    SyncAndComplete(&batch);
    batch.clear();
    bool idle;
    {
      // Not busy any more before the nudge, so that the journal thread it
      // wakes finds Idle() true.
      absl::MutexLock l(&mu_);
      busy_ = false;
      idle = pending_.empty();
    }
    if (idle && idle_nudge_ != nullptr) idle_nudge_->Nudge();
  }
}

void SyncThread::SyncAndComplete(std::vector<Written>* batch) {
  size_t begin = 0;
  while (begin < batch->size()) {
    // A run of groups of one file (a batch spans files only if the journal
    // rolled without draining, which it does not; this is belt and braces).
    size_t end = begin + 1;
    while (end < batch->size() && (*batch)[end].file == (*batch)[begin].file) {
      ++end;
    }
    bool written = false;  // something in the run to make durable
    for (size_t i = begin; i < end; ++i) {
      written = written || (*batch)[i].write_status.ok();
    }
    int64_t sync_nanos = 0;
    int64_t sync_start = 0;
    int64_t synced_at = 0;
    if (failed_.ok() && written) {
      WritableFile* file = (*batch)[begin].file;
      // Every byte appended before the sync starts is covered by it.
      const uint64_t covered = file->Size();
      sync_start = env_->NowMonotonicNanos();
      absl::Status s = file->Sync();
      synced_at = env_->NowMonotonicNanos();
      sync_nanos = synced_at - sync_start;
      counters_->syncs.fetch_add(1, std::memory_order_relaxed);
      if (s.ok()) {
        const auto n = static_cast<uint64_t>(sync_nanos);
        counters_->sync_nanos_total.fetch_add(n, std::memory_order_relaxed);
        if (n > counters_->sync_nanos_max.load(std::memory_order_relaxed)) {
          counters_->sync_nanos_max.store(n, std::memory_order_relaxed);
        }
      } else {
        failed_ = on_failure_(s);
      }
      if (s.ok() && drop_synced_pages_) DropSynced(file, covered);
    }
    for (size_t i = begin; i < end; ++i) {
      Written& w = (*batch)[i];
      const absl::Status& status =
          !w.write_status.ok() ? w.write_status : failed_;
      if (!status.ok()) {
        counters_->adds_failed.fetch_add(w.items.size(),
                                         std::memory_order_relaxed);
      } else if (observer_ != nullptr) {
        // The sync is reported once, with the first group it covered.
        JournalGroupEvent e;
        e.records = w.items.size();
        e.bytes = w.bytes;
        e.write_nanos = w.timing.write_nanos;
        e.sync_nanos = i == begin ? sync_nanos : 0;
        e.queue_nanos = w.timing.queue_nanos;
        e.sync_queue_nanos = sync_start - w.timing.written_at;
        observer_->OnGroup(e);
      }
      // A small group's callbacks run here when the completion thread is
      // idle: one thread wake-up fewer per group at low rates.
      completion_->SubmitOrRun(std::move(w.items), status, synced_at);
    }
    begin = end;
  }
}

void SyncThread::DropSynced(WritableFile* file, uint64_t covered) {
  if (file != dropped_file_ || covered < dropped_to_) {
    dropped_file_ = file;  // another file (rolled, or reused from the start)
    dropped_to_ = 0;
  }
  // Whole pages only: the journal thread may already be writing the next
  // group into the page the sync ended in, and asking to drop a dirty page
  // starts its writeback (an extra device write racing the next sync).
  constexpr uint64_t kPage = 4096;
  const uint64_t end = covered / kPage * kPage;
  if (end > dropped_to_) {
    file->DropCachedRange(dropped_to_, end - dropped_to_);
    dropped_to_ = end;
  }
}

}  // namespace bk::bookie
