#include "bookie/journal/sync_thread.h"

#include <algorithm>
#include <utility>

#include "common/thread_name.h"

namespace bk::bookie {

SyncThread::SyncThread(Env* env, CompletionThread* completion,
                       JournalCounters* counters, JournalObserver* observer,
                       FailFn on_failure, JournalQueue* idle_nudge,
                       bool drop_synced_pages, int max_in_flight)
    : env_(env),
      completion_(completion),
      counters_(counters),
      observer_(observer),
      on_failure_(std::move(on_failure)),
      idle_nudge_(idle_nudge),
      drop_synced_pages_(drop_synced_pages),
      max_in_flight_(std::max(1, max_in_flight)) {}

SyncThread::~SyncThread() { Stop(); }

void SyncThread::Start() {
  for (int i = 0; i < max_in_flight_; ++i) {
    threads_.emplace_back([this] {
      SetThreadName("bk-jsync");
      Loop();
    });
  }
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
    return pending_.empty() && in_flight_ == 0;
  };
  mu_.Await(absl::Condition(&idle));
}

bool SyncThread::Idle() {
  absl::MutexLock l(&mu_);
  return pending_.empty() && in_flight_ < max_in_flight_;
}

void SyncThread::Stop() {
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

bool SyncThread::SyncHere(WritableFile* file, std::vector<JournalItem>* items,
                          uint64_t bytes, GroupWriteTiming timing) {
  if (items->size() > CompletionThread::kMaxInlineItems) return false;
  uint64_t ticket;
  absl::Status failed;
  {
    absl::MutexLock l(&mu_);
    if (!pending_.empty() || in_flight_ > 0 || stopping_) return false;
    here_batch_.push_back(
        Written{file, std::move(*items), bytes, timing, absl::OkStatus()});
    ticket = TakeTicket(&here_batch_, &here_runs_, &failed);
  }
  // No nudge: the journal thread is the caller.
  RunBatch(&here_batch_, &here_runs_, ticket, failed);
  return true;
}

uint64_t SyncThread::TakeTicket(std::vector<Written>* batch,
                                std::vector<Run>* runs, absl::Status* failed) {
  ++in_flight_;
  *failed = failed_;
  // The sizes are read under mu_, so they grow with the tickets.
  size_t begin = 0;
  while (begin < batch->size()) {
    size_t end = begin + 1;
    while (end < batch->size() && (*batch)[end].file == (*batch)[begin].file) {
      ++end;
    }
    runs->push_back(Run{begin, end, (*batch)[begin].file->Size(), {}});
    begin = end;
  }
  return next_ticket_++;
}

bool SyncThread::RunBatch(std::vector<Written>* batch, std::vector<Run>* runs,
                          uint64_t ticket, const absl::Status& failed) {
  Sync(batch, runs, failed);
  {
    absl::MutexLock l(&mu_);
    auto my_turn = [this, ticket]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return turn_ == ticket;
    };
    mu_.Await(absl::Condition(&my_turn));
  }
  Complete(batch, runs);
  batch->clear();
  runs->clear();
  // Not in flight any more before the caller's nudge, so that the journal
  // thread it wakes finds Idle() true.
  absl::MutexLock l(&mu_);
  ++turn_;
  --in_flight_;
  return pending_.empty();
}

void SyncThread::Loop() {
  std::vector<Written> batch;
  std::vector<Run> runs;
  while (true) {
    uint64_t ticket;
    absl::Status failed;
    {
      absl::MutexLock l(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !pending_.empty() || stopping_;
      };
      mu_.Await(absl::Condition(&ready));
      if (pending_.empty()) return;  // stopping and drained
      // Everything written so far: one sync covers it all.
      for (Written& w : pending_) batch.push_back(std::move(w));
      pending_.clear();
      ticket = TakeTicket(&batch, &runs, &failed);
    }
    const bool idle = RunBatch(&batch, &runs, ticket, failed);
    if (idle && idle_nudge_ != nullptr) idle_nudge_->Nudge();
  }
}

void SyncThread::Sync(std::vector<Written>* batch, std::vector<Run>* runs,
                      const absl::Status& failed) {
  for (Run& run : *runs) {
    bool written = false;  // something in the run to make durable
    for (size_t i = run.begin; i < run.end; ++i) {
      written = written || (*batch)[i].write_status.ok();
    }
    if (!failed.ok() || !written) continue;
    WritableFile* file = (*batch)[run.begin].file;
    run.sync_start = env_->NowMonotonicNanos();
    run.sync_status = file->Sync();
    run.synced_at = env_->NowMonotonicNanos();
    run.synced = true;
    // A failed sync ends the batch's syncs; its turn records the failure.
    if (!run.sync_status.ok()) break;
  }
}

void SyncThread::Complete(std::vector<Written>* batch, std::vector<Run>* runs) {
  absl::Status failed;
  {
    absl::MutexLock l(&mu_);
    failed = failed_;
  }
  for (Run& run : *runs) {
    const int64_t sync_nanos = run.synced_at - run.sync_start;
    if (run.synced) {
      counters_->syncs.fetch_add(1, std::memory_order_relaxed);
      if (run.sync_status.ok()) {
        const auto n = static_cast<uint64_t>(sync_nanos);
        counters_->sync_nanos_total.fetch_add(n, std::memory_order_relaxed);
        if (n > counters_->sync_nanos_max.load(std::memory_order_relaxed)) {
          counters_->sync_nanos_max.store(n, std::memory_order_relaxed);
        }
      } else if (failed.ok()) {
        failed = on_failure_(run.sync_status);
        absl::MutexLock l(&mu_);
        failed_ = failed;
      }
      if (run.sync_status.ok() && failed.ok() && drop_synced_pages_) {
        DropSynced((*batch)[run.begin].file, run.covered);
      }
    }
    // A run not synced: every group of it failed its write, or `failed` was
    // set when the batch was taken or by an earlier run of it.
    for (size_t i = run.begin; i < run.end; ++i) {
      Written& w = (*batch)[i];
      const absl::Status& status =
          !w.write_status.ok() ? w.write_status : failed;
      if (!status.ok()) {
        counters_->adds_failed.fetch_add(w.items.size(),
                                         std::memory_order_relaxed);
      } else if (observer_ != nullptr) {
        // The sync is reported once, with the first group it covered.
        JournalGroupEvent e;
        e.records = w.items.size();
        e.bytes = w.bytes;
        e.write_nanos = w.timing.write_nanos;
        e.sync_nanos = i == run.begin ? sync_nanos : 0;
        e.queue_nanos = w.timing.queue_nanos;
        e.sync_queue_nanos = run.sync_start - w.timing.written_at;
        observer_->OnGroup(e);
      }
      // A small group's callbacks run here when the completion thread is
      // idle: one thread wake-up fewer per group at low rates.
      completion_->SubmitOrRun(std::move(w.items), status, run.synced_at);
    }
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
