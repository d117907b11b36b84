// FlushProgress: numbers the ledger storage's flushes, so that the state of
// a deleted ledger is dropped only once neither a flush nor a journal replay
// can bring the ledger's entries back.
//
// A flush takes the next generation (Begin) before it takes its checkpoint
// mark and before any directory swaps its write cache. Once every directory
// flushed and the journal checkpoint moved to the flush's mark, the storage
// reports the generation (Checkpointed). So, for a ledger deleted while
// started() was g:
//  - every entry the write cache held at the deletion was swapped out by a
//    flush of generation <= g + 1, which skipped it (the ledger was deleted);
//  - the journal records of the ledger precede the mark of generation g + 1
//    (an add journals its entry right after caching it, and a deleted
//    ledger refuses adds), so a replay from that checkpoint on never sees
//    them.
// Hence checkpointed() > g means both are behind us. The one exception is
// an add that passed the deleted check just before the deletion and then
// stalled, between its check and its cache insert or journal push, for
// longer than a whole flush: the retention (an hour by default) covers it,
// and should it still happen, the entry's ledger is unknown by then, so a
// flush drops the entry, and a replayed record makes a new ledger that the
// next GC pass deletes again (see ledger_dir.h).
//
// Thread-safe (atomics). Owned by LedgerStorage; directories hold a pointer.

#ifndef BK_BOOKIE_STORAGE_FLUSH_PROGRESS_H_
#define BK_BOOKIE_STORAGE_FLUSH_PROGRESS_H_

#include <atomic>
#include <cstdint>

namespace bk::bookie {

class FlushProgress {
 public:
  // A new flush: returns its generation (1, 2, ...). REQUIRES: called
  // before the flush takes its mark and swaps any write cache, by one flush
  // at a time.
  uint64_t Begin() { return started_.fetch_add(1) + 1; }
  // The flush of generation `gen` completed in every directory and the
  // journal checkpoint is durably at its mark (or there is no journal).
  void Checkpointed(uint64_t gen) {
    uint64_t cur = checkpointed_.load();
    while (cur < gen && !checkpointed_.compare_exchange_weak(cur, gen)) {
    }
  }
  // Forgets what was checkpointed so far: only flushes that begin after
  // this count. Used when the journal hooks are installed, since flushes
  // before that had no journal checkpoint at all.
  void ResetCheckpointed() { checkpointed_.store(0); }

  // The generation of the latest flush begun (0: none yet).
  uint64_t started() const { return started_.load(); }
  // The latest generation reported by Checkpointed (0: none).
  uint64_t checkpointed() const { return checkpointed_.load(); }

 private:
  std::atomic<uint64_t> started_{0};
  std::atomic<uint64_t> checkpointed_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_FLUSH_PROGRESS_H_
