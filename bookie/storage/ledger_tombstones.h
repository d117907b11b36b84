// LedgerTombstones: the deleted ledgers of one directory whose state row
// (the tombstone) is still kept, in deletion order, with what is needed to
// tell when the row may be dropped (purged).
//
// A tombstone is kept so that, for a while after the deletion, late adds to
// the ledger are refused (NotFound) and neither a flush nor a journal replay
// brings its entries back. It may go once (see flush_progress.h):
//  1. a flush that began after the deletion completed (nothing of the
//     ledger is left in the write cache) and
//  2. the journal checkpoint moved to that flush's mark (a replay never
//     sees the ledger's records), i.e. FlushProgress::checkpointed() is
//     above the generation recorded at deletion, and
//  3. the retention (deletedLedgerRetentionSeconds) has passed.
//
// Tombstones are in memory only. A deleted row found at open is queued with
// generation 0 and the open time: the restart's replay and first
// checkpointed flush cover condition 2, and the retention starts again.
//
// Thread-safe. Generations and times are taken under the mutex, so both are
// non-decreasing from front to back and Ready() stops at the first
// tombstone that is not ready.

#ifndef BK_BOOKIE_STORAGE_LEDGER_TOMBSTONES_H_
#define BK_BOOKIE_STORAGE_LEDGER_TOMBSTONES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace bk::bookie {

class LedgerTombstones {
 public:
  // Queues the tombstone of `ledger_id`, deleted now. `flush_gen` and
  // `now_nanos` are called under the mutex (so that the queue stays
  // ordered).
  void Add(uint64_t ledger_id, const std::function<uint64_t()>& flush_gen,
           const std::function<int64_t()>& now_nanos) {
    absl::MutexLock l(&mu_);
    queue_.push_back({ledger_id, flush_gen(), now_nanos()});
  }

  // The ledgers at the front whose tombstone may go: deleted while the
  // flush generation was below `checkpointed_gen` and at least
  // `retention_nanos` before `now_nanos`. They stay queued until Pop.
  std::vector<uint64_t> Ready(uint64_t checkpointed_gen, int64_t now_nanos,
                              int64_t retention_nanos) const {
    std::vector<uint64_t> out;
    absl::MutexLock l(&mu_);
    for (const Tombstone& t : queue_) {
      if (t.flush_gen >= checkpointed_gen) break;
      if (now_nanos - t.deleted_nanos < retention_nanos) break;
      out.push_back(t.ledger_id);
    }
    return out;
  }

  // Drops the first `n` tombstones (those Ready returned and that are
  // purged). REQUIRES: one caller of Ready/Pop at a time.
  void Pop(size_t n) {
    absl::MutexLock l(&mu_);
    queue_.erase(queue_.begin(),
                 queue_.begin() +
                     static_cast<std::ptrdiff_t>(std::min(n, queue_.size())));
  }

  size_t size() const {
    absl::MutexLock l(&mu_);
    return queue_.size();
  }

 private:
  struct Tombstone {
    uint64_t ledger_id;
    uint64_t flush_gen;     // FlushProgress::started() at deletion
    int64_t deleted_nanos;  // Env::NowMonotonicNanos() at deletion
  };

  mutable absl::Mutex mu_;
  std::deque<Tombstone> queue_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_TOMBSTONES_H_
