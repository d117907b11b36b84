// LedgerStateTable: the LedgerState of every ledger of one directory, in a
// sharded in-memory map loaded at open and written through to the index.
//
// Durability: Update(..., sync=true) returns only after the new state is
// durable (used for fencing, master key and deletion). Ensure() records a
// new ledger without a sync: the next synced index write (every flush is
// one) makes it durable, before any of its entries is indexed.
//
// Thread-safe. Updates of one ledger are serialised by its shard's mutex,
// which is held across the index write so that the persisted order equals
// the in-memory order.

#ifndef BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_
#define BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/ledger_state.h"

namespace bk::bookie {

class LedgerStateTable {
 public:
  // `index` must outlive the table.
  explicit LedgerStateTable(LedgerIndex* index, int shards = 16);

  // Loads every persisted state.
  absl::Status Load();

  std::optional<LedgerState> Get(uint64_t ledger_id) const;
  // True when the ledger is known and not deleted.
  bool Exists(uint64_t ledger_id) const;
  bool IsDeleted(uint64_t ledger_id) const;
  // Makes the ledger known (no-op if it is). NotFound if it was deleted.
  absl::Status Ensure(uint64_t ledger_id);
  // Applies `mutate` to the ledger's state (a default state if unknown) and
  // persists the result. `mutate` returns false to leave everything as is,
  // or an error to abort. Runs under the shard mutex: keep it short.
  absl::Status Update(
      uint64_t ledger_id, bool sync,
      const std::function<absl::StatusOr<bool>(LedgerState*)>& mutate);
  // Ids of the ledgers not deleted.
  std::vector<uint64_t> LiveLedgers() const;
  // Ids of the deleted ledgers (their tombstones).
  std::vector<uint64_t> DeletedLedgers() const;
  // Drops a deleted ledger's state from memory and from the index (not
  // synced: if the removal is lost in a crash, the tombstone is back as
  // deleted and is purged again). Afterwards the id is unknown: Ensure
  // makes it a new ledger. A no-op unless the ledger is deleted; true if it
  // dropped a row.
  absl::StatusOr<bool> Purge(uint64_t ledger_id);

 private:
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<uint64_t, LedgerState> states ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(uint64_t ledger_id) const;

  // Constant after construction.
  LedgerIndex* const index_;
  const std::unique_ptr<Shard[]> shards_;
  const int shard_count_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_
