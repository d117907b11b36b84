// LedgerStateTable: the owner of the per-ledger state of one ledger
// directory: one LedgerSlot (ledger_slot.h) per ledger the directory knows,
// deleted ones included until their tombstone is purged. Loaded from the
// index at open; nothing else in the bookie keeps a copy.
//
// Durability. A change (Changed, or a ledger made by FindOrCreate) is only
// recorded here; the next flush of the directory writes every recorded
// change into its synced index batch (TakeChanged). The owner journals the
// change before it answers anyone, so until that flush the journal holds
// it, and the journal checkpoint passes the change only after that flush
// (the mark is taken before the flush starts; the change was recorded
// before its journal record). Deletion is different: MarkDeleted writes at
// once, synced.
//
// Thread-safe. A shard lock guards only the shard's map and recorded
// changes and is never held while waiting for a slot's lock (lock order:
// slot mu -> shard lock). The owner serialises TakeChanged-and-commit with
// MarkDeleted (LedgerDir: its write lock), so that an older recorded state
// never lands on top of a deletion.

#ifndef BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_
#define BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/ledger_slot.h"
#include "bookie/storage/ledger_state.h"

namespace bk::bookie {

class LedgerStateTable {
 public:
  // `index` must outlive the table.
  explicit LedgerStateTable(LedgerIndex* index, int shards = 16);

  // Loads every persisted state. REQUIRES: called once, before anything.
  absl::Status Load();

  // The ledger's slot, deleted or not; null when unknown (never seen here,
  // or purged).
  std::shared_ptr<LedgerSlot> Find(uint64_t ledger_id) const;
  // The ledger's slot; an unknown ledger is made (empty state, recorded as
  // changed) and *created (if given) set. NotFound if it was deleted.
  absl::StatusOr<std::shared_ptr<LedgerSlot>> FindOrCreate(
      uint64_t ledger_id, bool* created = nullptr);
  // True when the ledger is known and not deleted.
  bool Exists(uint64_t ledger_id) const;
  bool IsDeleted(uint64_t ledger_id) const;

  // Records slot.state as the ledger's state for the next TakeChanged.
  // REQUIRES: slot.mu held; the slot not deleted.
  void Changed(const LedgerSlot& slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot.mu);
  // Puts every state recorded since the last call into `batch` and forgets
  // them; returns how many. The caller commits the batch synced.
  size_t TakeChanged(IndexBatch* batch);

  // Marks the ledger deleted (master key and explicit LAC dropped),
  // durably, and forgets its recorded change. A no-op if deleted already.
  // REQUIRES: slot->mu held.
  absl::Status MarkDeleted(LedgerSlot* slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot->mu);

  // Ids of the ledgers not deleted / deleted (their tombstones).
  std::vector<uint64_t> LiveLedgers() const;
  std::vector<uint64_t> DeletedLedgers() const;
  // Every slot (to answer every long poll at shutdown).
  std::vector<std::shared_ptr<LedgerSlot>> All() const;
  // Drops a deleted ledger's slot and its index row (not synced: if the
  // removal is lost in a crash, the tombstone is back as deleted and is
  // purged again). Afterwards the id is unknown: FindOrCreate makes it a
  // new ledger. A no-op unless the ledger is deleted; true if it dropped
  // one.
  absl::StatusOr<bool> Purge(uint64_t ledger_id);

 private:
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<uint64_t, std::shared_ptr<LedgerSlot>> slots
        ABSL_GUARDED_BY(mu);
    // Encoded states recorded by Changed, not yet handed to a flush.
    absl::flat_hash_map<uint64_t, std::string> changed ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(uint64_t ledger_id) const;

  // Constant after construction.
  LedgerIndex* const index_;
  const std::unique_ptr<Shard[]> shards_;
  const int shard_count_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_STATE_TABLE_H_
