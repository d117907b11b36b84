// BookieStore: what the gRPC service asks of the bookie's storage. It puts
// per-ledger rules (master key, fencing, LAC, long polls) in front of the
// journal (durability) and the ledger storage (entry logs, index, caches).
//
// Add path, with no process-wide lock: per-ledger state (master key, fence,
// LAC) has one owner, a sharded table with a lock per ledger; the entry
// goes to the write cache and, by the same buffer, to the journal queue;
// its callback runs on the journal's completion thread once its group is
// synced, never under a lock of ours.
//
// Fencing and the master key are journaled, through the same group commit
// as entries (no add makes a synced write of its own), and no writer is
// told EFENCED before the fence is durable: an add that meets a fence still
// being synced waits for it. A journaled fence or key survives a crash
// (replay restores it) and is written to the index before the journal
// checkpoint passes its record.
//
// Thread-safety: every method may be called from any thread concurrently.
// Callbacks must not block; they may call back into the store.

#ifndef BK_BOOKIE_BOOKIE_STORE_H_
#define BK_BOOKIE_BOOKIE_STORE_H_

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

// Receives the outcomes of a batch's adds: each add's exactly once, in one
// or more calls (for example refusals at once, then each journal group's
// adds once synced), possibly from different threads at the same time.
using AddBatchCallback = absl::AnyInvocable<void(absl::Span<const AddOutcome>)>;

// Figures the daemon reports (GetBookieInfo, /metrics, /ready).
struct StoreStats {
  int64_t adds_in_flight = 0;
  int64_t journal_queue_depth = 0;
  bool writable = true;           // false: read-only or failed
  std::string unwritable_reason;  // empty when writable
  // False after a failure only a restart clears (a failed journal or
  // ledger storage, a failed checkpoint); why, when false.
  bool healthy = true;
  std::string unhealthy_reason;
  // The first failed journal checkpoint (lastMark write or journal file
  // retirement), empty if none; sticky: no checkpoint is tried after it.
  std::string checkpoint_error;
  // Flushes whose checkpoint failed or was not tried because of it.
  uint64_t checkpoint_failures = 0;
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
  // errors, answered once durable or refused), in order; the store may hand
  // the batch to the journal at once and answer the adds that share a
  // journal group in one call of `done`. Moves from every element of
  // `adds`. The default calls AddEntry for each and answers each alone.
  virtual void AddEntries(absl::Span<AddEntryRequest> adds,
                          AddBatchCallback done) {
    auto shared = std::make_shared<AddBatchCallback>(std::move(done));
    for (AddEntryRequest& a : adds) {
      const uint64_t ledger = a.args.ledger_id;
      const int64_t entry = a.args.entry_id;
      AddEntry(a.args, std::move(a.body),
               [shared, ledger, entry](absl::Status s) {
                 const AddOutcome o{ledger, entry, std::move(s)};
                 (*shared)(absl::MakeConstSpan(&o, 1));
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
  // current LAC when `timeout` passes. Runs `done` on a store thread, or on
  // the caller's before returning when it can answer at once. Returns the
  // wait's id for CancelLacWait, or 0 if `done` has run already.
  virtual uint64_t WaitForLacUpdate(
      uint64_t ledger_id, int64_t previous_lac, absl::Duration timeout,
      std::function<void(absl::StatusOr<int64_t>)> done) = 0;
  // Answers the wait `wait_id` with Cancelled now (on the caller's thread)
  // if it is still parked; otherwise does nothing (its answer has run or is
  // running).
  virtual void CancelLacWait(uint64_t ledger_id, uint64_t wait_id) = 0;

  // Explicit LAC (WriteLac): journaled, then `done`.
  virtual void WriteLac(uint64_t ledger_id, int64_t lac,
                        const std::string& master_key, StatusCallback done) = 0;
  virtual absl::StatusOr<int64_t> ExplicitLac(uint64_t ledger_id) = 0;

  // Calls `done` once every add to the ledger accepted before the call is
  // durable.
  virtual void ForceLedger(uint64_t ledger_id, const std::string& master_key,
                           StatusCallback done) = 0;

  // Entry ids the bookie holds for the ledger, ascending, from
  // first_entry_id on, at most max_entries of them.
  virtual absl::StatusOr<std::vector<int64_t>> ListEntries(
      uint64_t ledger_id, int64_t first_entry_id, size_t max_entries) = 0;

  virtual StoreStats Stats() = 0;

  // Read-only on or off (an operator's drain, or a full disk). Adds get
  // Unavailable while on; reads are served.
  virtual void SetReadOnly(bool read_only, const std::string& reason) = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_BOOKIE_STORE_H_
