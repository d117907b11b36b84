// BookieStore: what the gRPC service asks of the bookie's storage. It puts
// per-ledger rules (master key, fencing, LAC, long polls) in front of the
// journal (durability) and the ledger storage (entry logs, index, caches).
//
// Add path, with no process-wide lock: per-ledger state lives in a sharded
// map; the entry goes to the write cache and, by the same buffer, to the
// journal queue; its callback runs on the journal's completion thread once
// its group is synced, never under a lock of ours.
//
// Fencing is journaled, and no writer is told EFENCED before the fence is
// durable: an add that meets a fence still being synced waits for it.
//
// Thread-safety: every method may be called from any thread concurrently.
// Callbacks must not block; they may call back into the store.

#ifndef BK_BOOKIE_BOOKIE_STORE_H_
#define BK_BOOKIE_BOOKIE_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "bookie/storage/entry_buffer.h"

namespace bk::bookie {

// Called once with the outcome of an asynchronous operation.
using StatusCallback = std::function<void(absl::Status)>;

struct AddArgs {
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  std::string master_key;
  bool recovery = false;  // RECOVERY_ADD: allowed on a fenced ledger
};

// One add of a batch (BookieStore::AddEntries).
struct AddEntryRequest {
  AddArgs args;
  EntryBuffer body;
};

// The outcome of one add of a batch.
struct AddOutcome {
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::Status status;
};

// Called once per batch with one outcome per add, in the batch's order.
using AddBatchCallback = absl::AnyInvocable<void(absl::Span<const AddOutcome>)>;

// Figures the daemon reports (GetBookieInfo, /metrics, /ready).
struct StoreStats {
  int64_t adds_in_flight = 0;
  int64_t journal_queue_depth = 0;
  bool writable = true;           // false: read-only or failed
  std::string unwritable_reason;  // empty when writable
};

class BookieStore {
 public:
  virtual ~BookieStore() = default;

  // Stores one packaged entry. `body` must be the packaged entry whose
  // header names args.ledger_id / args.entry_id. Errors (via callback):
  //   FailedPrecondition (EFENCED)  the ledger is fenced and !recovery
  //   PermissionDenied (EUA)        master key differs from the ledger's
  //   Unavailable (EREADONLY)       the bookie is read-only
  //   ResourceExhausted             write cache full past the throttle time
  //   InvalidArgument (EBADREQ)     header and args disagree, malformed
  //   Internal (EIO)                journal or storage failed (sticky)
  virtual void AddEntry(const AddArgs& args, EntryBuffer body,
                        StatusCallback done) = 0;

  // Stores a batch: each add exactly as AddEntry would (same checks, same
  // errors), in order; the store may hand the whole batch to the journal at
  // once. `done` runs once, after the last add of the batch is durable or
  // refused, with every add's outcome (a refused add's error waits for the
  // rest of its batch). Moves from every element of `adds`. The default
  // calls AddEntry for each.
  virtual void AddEntries(absl::Span<AddEntryRequest> adds,
                          AddBatchCallback done) {
    struct Batch {
      std::vector<AddOutcome> outcomes;
      std::atomic<size_t> left{0};
      AddBatchCallback done;
    };
    auto batch = std::make_shared<Batch>();
    batch->outcomes.resize(adds.size());
    batch->left.store(adds.size());
    batch->done = std::move(done);
    if (adds.empty()) return batch->done({});
    for (size_t i = 0; i < adds.size(); ++i) {
      batch->outcomes[i].ledger_id = adds[i].args.ledger_id;
      batch->outcomes[i].entry_id = adds[i].args.entry_id;
    }
    for (size_t i = 0; i < adds.size(); ++i) {
      AddEntry(adds[i].args, std::move(adds[i].body),
               [batch, i](absl::Status s) {
                 batch->outcomes[i].status = std::move(s);
                 if (batch->left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                   batch->done(batch->outcomes);
                 }
               });
    }
  }

  // The packaged entry, or NotFound (ENOLEDGER / ENOENTRY). entry_id -1 reads
  // the last entry the bookie holds for the ledger.
  virtual absl::StatusOr<EntryBuffer> ReadEntry(uint64_t ledger_id,
                                                int64_t entry_id) = 0;

  // Fences the ledger (creating its state if the bookie has never seen it,
  // as recovery may fence a bookie that got no entries) and calls `done`
  // once the fence is durable. PermissionDenied on a master key mismatch.
  virtual void Fence(uint64_t ledger_id, const std::string& master_key,
                     StatusCallback done) = 0;

  // The best LAC known for the ledger: the highest LAC carried by any entry
  // stored, or the explicit LAC, whichever is higher; -1 if none.
  virtual absl::StatusOr<int64_t> LastAddConfirmed(uint64_t ledger_id) = 0;

  // Calls `done(lac)` once the LAC is above `previous_lac`, or with the
  // current LAC when `timeout` passes. Runs `done` on a store thread.
  virtual void WaitForLacUpdate(
      uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
      std::function<void(absl::StatusOr<int64_t>)> done) = 0;

  // Explicit LAC (WriteLac): journaled, then `done`.
  virtual void WriteLac(uint64_t ledger_id, int64_t lac,
                        const std::string& master_key, StatusCallback done) = 0;
  virtual absl::StatusOr<int64_t> ExplicitLac(uint64_t ledger_id) = 0;

  // Calls `done` once every add to the ledger accepted before the call is
  // durable.
  virtual void ForceLedger(uint64_t ledger_id, const std::string& master_key,
                           StatusCallback done) = 0;

  // Entry ids the bookie holds for the ledger, ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ListEntries(
      uint64_t ledger_id) = 0;

  virtual StoreStats Stats() = 0;

  // Read-only on or off (an operator's drain, or a full disk). Adds get
  // Unavailable while on; reads are served.
  virtual void SetReadOnly(bool read_only, const std::string& reason) = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_BOOKIE_STORE_H_
