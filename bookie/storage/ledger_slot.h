// LedgerSlot: one ledger's state in memory, the only copy the bookie keeps.
// The LedgerStateTable of the ledger's directory owns the slots (shared
// with whoever holds one: a slot dropped from the table by a purge stays
// valid for its holders and says deleted).
//
// What a slot holds:
//  - `state`: the durable facts (ledger_state.h: master key, fenced,
//    explicit LAC, deleted) as the index will hold them once the changes
//    recorded with LedgerStateTable::Changed are flushed. Until then the
//    owner's journal holds them (the request layer journals a record for
//    every change before it answers anyone).
//  - what the request layer derives or awaits at run time: the best known
//    LAC and the long polls waiting for it to move, and whether the fence
//    record is still on its way to disk, with the adds and fences that wait
//    for it (no writer hears EFENCED before the fence is durable).
//
// Concurrency: `mu` is the ledger's lock. Whoever changes `state` holds it
// and calls LedgerStateTable::Changed before releasing it. The request
// layer holds it across an add's checks and its write-cache insert, so a
// fence takes effect before the checks or after the entry is visible.
// Lock order: `mu` before the directory's write lock and the table's shard
// locks; never taken while holding either. `deleted` mirrors state.deleted
// for readers that must not wait for an add (flushes, GC, reads).

#ifndef BK_BOOKIE_STORAGE_LEDGER_SLOT_H_
#define BK_BOOKIE_STORAGE_LEDGER_SLOT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/ledger_state.h"

namespace bk::bookie {

// A long poll waiting for the ledger's LAC to pass `previous_lac`.
struct LacWaiter {
  uint64_t id = 0;
  int64_t previous_lac = -1;
  uint64_t timer_id = 0;
  std::function<void(absl::StatusOr<int64_t>)> done;
};

// Waits for the ledger's fence record: called once with the journal's
// outcome (OK: the fence is durable).
using FenceWaiter = absl::AnyInvocable<void(absl::Status)>;

struct LedgerSlot {
  explicit LedgerSlot(uint64_t id) : ledger_id(id) {}
  LedgerSlot(const LedgerSlot&) = delete;
  LedgerSlot& operator=(const LedgerSlot&) = delete;

  // Constant.
  const uint64_t ledger_id;

  absl::Mutex mu;
  LedgerState state ABSL_GUARDED_BY(mu);
  // state.fenced is set but its journal record is not synced yet.
  bool fence_pending ABSL_GUARDED_BY(mu) = false;
  std::vector<FenceWaiter> fence_waiters ABSL_GUARDED_BY(mu);
  // Highest LAC carried by any entry stored, or the explicit LAC; -1 none.
  // Valid once lac_loaded (loaded from the storage on first use).
  bool lac_loaded ABSL_GUARDED_BY(mu) = false;
  int64_t lac ABSL_GUARDED_BY(mu) = -1;
  std::vector<LacWaiter> lac_waiters ABSL_GUARDED_BY(mu);

  // Own synchronisation: written under mu, read without it.
  std::atomic<bool> deleted{false};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_SLOT_H_
