// LedgerStorage: the bookie's ledger storage (BookKeeper's DbLedgerStorage):
// entries in a double-buffered write cache, flushed to entry logs indexed in
// RocksDB, read back through a read-ahead cache; the per-ledger state
// (fenced, master key, explicit LAC, deleted; ledger_slot.h), of which it is
// the one owner; garbage collection and compaction.
// Ledgers are spread over the ledger directories by id (ledger % dirs), each
// directory with its own logs, index and share of the cache budgets; a new
// ledger skips a directory marked full (SetDirFull), and a ledger stays in
// the directory that knows it.
//
// Durability contract with the journal: AddEntry only caches. An entry is
// durable in the storage once a Flush that started after its AddEntry
// returned OK. The owner registers CheckpointHooks: a flush takes a mark
// (take_mark) before it swaps the caches, and reports it (flushed) after
// every directory's entries are synced and indexed, so the journal may
// then drop everything older than the mark.
//
// Lifecycle: Open starts a background flusher (unless disabled) and a GC
// thread, which runs a pass every gc_wait_time (never when it is 0) and
// whenever RequestGc asks; the destructor stops them without
// flushing (the journal replays what was not flushed). Close flushes first.
//
// Threads: every method is thread-safe. No lock is shared by all adds.
//
// Errors: NotFound (no such entry / ledger deleted), DataLoss (a stored
// copy failed its checks; never served), ResourceExhausted (write cache
// full after max_throttle_time: ETOOMANYREQUESTS), and the sticky error of
// a broken directory (a failed entry-log write or sync, or index commit):
// from then on adds to it fail; reads still work. The rules a ledger's
// state imposes (master key, fencing) are the owner's to check.

#ifndef BK_BOOKIE_STORAGE_LEDGER_STORAGE_H_
#define BK_BOOKIE_STORAGE_LEDGER_STORAGE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/entry_buffer.h"
#include "bookie/storage/flush_progress.h"
#include "bookie/storage/gc_status.h"
#include "bookie/storage/ledger_dir.h"
#include "bookie/storage/ledger_slot.h"
#include "bookie/storage/storage_options.h"
#include "bookie/storage/storage_stats.h"
#include "common/env.h"

namespace bk::bookie {

// How the storage tells the journal what is safely flushed.
struct CheckpointHooks {
  // Called before a flush swaps the caches: a position such that every
  // entry journaled before it has already been added to this storage. 0
  // means no mark (the journal cannot checkpoint yet, e.g. during replay).
  std::function<uint64_t()> take_mark;
  // Called after a flush made everything up to `mark` durable here. OK
  // once the journal checkpoint is durably at `mark`: only then may the
  // tombstones of ledgers deleted before the flush be purged.
  std::function<absl::Status(uint64_t mark)> flushed;
};

// Makes the deleted-ledger filter of one GC pass.
using DeletedLedgerFilterFactory = std::function<LedgerDeletedFn()>;

class LedgerStorage {
 public:
  static constexpr int64_t kLastEntry = -1;

  // `env` must outlive the storage.
  static absl::StatusOr<std::unique_ptr<LedgerStorage>> Open(
      Env* env, const LedgerStorageOptions& options);
  ~LedgerStorage();

  // Entries. `entry` is kept by handle, not copied.
  absl::Status AddEntry(uint64_t ledger_id, int64_t entry_id,
                        EntryBuffer entry);
  // The same with `entry_crc` = crc32c::Value(*entry) already computed (the
  // entry log derives its record CRC from it).
  absl::Status AddEntry(uint64_t ledger_id, int64_t entry_id, EntryBuffer entry,
                        uint32_t entry_crc);
  // entry_id kLastEntry: the ledger's last entry.
  absl::StatusOr<EntryBuffer> GetEntry(uint64_t ledger_id, int64_t entry_id);
  // -1 when the ledger has no entries.
  absl::StatusOr<int64_t> GetLastEntryId(uint64_t ledger_id);
  // The LAC carried by the last entry's header (proto/entry_format.h).
  absl::StatusOr<int64_t> GetLastAddConfirmed(uint64_t ledger_id);
  // Entry ids held, ascending, from first_entry_id on, at most max_entries.
  absl::StatusOr<std::vector<int64_t>> GetListOfEntriesOfLedger(
      uint64_t ledger_id, int64_t first_entry_id, size_t max_entries);
  // Every entry id held (for tests and tools; unbounded).
  absl::StatusOr<std::vector<int64_t>> GetListOfEntriesOfLedger(
      uint64_t ledger_id) {
    return GetListOfEntriesOfLedger(ledger_id, 0, SIZE_MAX);
  }

  // Ledger state: one LedgerSlot per ledger (ledger_slot.h) in the
  // LedgerStateTable of its directory, the only copy in memory. A change
  // made under the slot's lock and recorded with LedgerStateChanged is
  // durable here after the next Flush; the owner journals it meanwhile.
  bool LedgerExists(uint64_t ledger_id);
  // The ledger's slot, deleted or not; null when unknown.
  std::shared_ptr<LedgerSlot> FindLedger(uint64_t ledger_id);
  // The ledger's slot, made if unknown (*created set); NotFound if deleted.
  absl::StatusOr<std::shared_ptr<LedgerSlot>> FindOrCreateLedger(
      uint64_t ledger_id, bool* created = nullptr);
  // Records slot.state for the next Flush. REQUIRES: slot.mu held, the
  // ledger not deleted.
  void LedgerStateChanged(const LedgerSlot& slot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(slot.mu);
  // Every ledger's slot, deleted ones included.
  std::vector<std::shared_ptr<LedgerSlot>> AllLedgers();
  // Drops the ledger's entries and marks it deleted (durably). The deleted
  // mark (tombstone) refuses late adds with NotFound until GC purges it
  // (see LedgerDir); after that the id is unknown again.
  absl::Status DeleteLedger(uint64_t ledger_id);

  // Durability. Flushes before the hooks are set count as checkpointed
  // only while no hooks were ever set (a storage without journal).
  void SetCheckpointHooks(CheckpointHooks hooks);
  absl::Status Flush();
  // Flushes, then stops the background threads.
  absl::Status Close();
  // OK while every directory is writable; else the first directory's error.
  absl::Status writable() const;

  // Several directories: a ledger lives in the one that knows it (its
  // entries, index rows and state); a new ledger goes to its home
  // directory (ledger % dirs) unless the owner marked that one full, then
  // to the next that is not (to its home when all are). Ledgers already in
  // a full directory stay there. The daemon's disk checker sets this.
  void SetDirFull(size_t dir_index, bool full);

  // Garbage collection. One pass over every directory: deletes ledgers that
  // `deleted` reports (may be empty), purges tombstones that may go,
  // removes dead logs, compacts logs whose live fraction is below
  // `threshold`. The removal listener hears of each ledger deleted or
  // purged.
  absl::StatusOr<GcResult> RunGc(const LedgerDeletedFn& deleted,
                                 double threshold);
  // How the background GC learns about deleted ledgers: `make_filter` is
  // called on the GC thread at the start of each pass and returns that
  // pass's filter (empty: delete nothing this pass). So a filter may
  // snapshot the metadata store once per pass. Empty (the default): the
  // background GC deletes no ledger.
  void SetDeletedLedgerFilter(DeletedLedgerFilterFactory make_filter);
  // Asks the background GC thread for a pass now (the admin API's PUT
  // /api/v1/bookie/gc), with the deleted-ledger filter as usual, compacting
  // at the major threshold (force_major), else the minor one (force_minor),
  // else as the intervals say. Returns at once; GcStatus().force_requested
  // stays true until that pass is done. Works with gc_wait_time 0 too.
  void RequestGc(bool force_major, bool force_minor);
  GcStatus GetGcStatus() const;
  // Who hears of ledgers GC deleted or purged (the owner's per-ledger
  // caches). Called on the GC thread (or RunGc's caller); it must not call
  // RunGc. Set it before anything may run GC, or accept missing a pass.
  void SetLedgerRemovedListener(LedgerRemovedFn removed);

  StorageStats GetStats() const;

 private:
  LedgerStorage(Env* env, const LedgerStorageOptions& options);
  // The directory that knows the ledger, or null.
  LedgerDir* KnownDirOf(uint64_t ledger_id) const;
  // The directory that knows the ledger, else its home (ledger % dirs).
  LedgerDir& DirOf(uint64_t ledger_id) const;
  // The ledger's slot where it is known, else made in its home directory
  // or, when that is full, the next one that is not.
  absl::StatusOr<std::shared_ptr<LedgerSlot>> FindOrPlace(uint64_t ledger_id,
                                                          bool* created);
  // Where an add goes: placed by FindOrPlace when the ledger is new.
  LedgerDir& DirForWrite(uint64_t ledger_id);
  void RequestFlush();
  void FlushLoop();
  void GcLoop();
  void StopThreads();

  // Constant after construction.
  Env* const env_;
  const LedgerStorageOptions options_;
  // Own synchronisation; declared before dirs_ so that it outlives them.
  FlushProgress progress_;
  std::vector<std::unique_ptr<LedgerDir>> dirs_;
  // Own synchronisation: which directories new ledgers skip (SetDirFull).
  std::unique_ptr<std::atomic<bool>[]> dir_full_;
  // Held while a new ledger is placed, so it is placed once.
  absl::Mutex placement_mu_;

  // One storage-wide flush at a time (background or explicit); also held
  // while the checkpoint hooks change.
  absl::Mutex flush_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  mutable absl::Mutex mu_;
  CheckpointHooks hooks_ ABSL_GUARDED_BY(mu_);
  DeletedLedgerFilterFactory make_filter_ ABSL_GUARDED_BY(mu_);
  LedgerRemovedFn removed_fn_ ABSL_GUARDED_BY(mu_);
  bool flush_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool gc_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool gc_force_major_ ABSL_GUARDED_BY(mu_) = false;
  bool gc_force_minor_ ABSL_GUARDED_BY(mu_) = false;
  GcStatus gc_status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Set once SetCheckpointHooks was called: from then on a flush counts
  // for purging only if its mark became the journal checkpoint.
  bool hooks_set_ ABSL_GUARDED_BY(mu_) = false;

  // Own synchronisation.
  std::atomic<uint64_t> flush_busy_nanos_{0};
  // Own synchronisation (started in Open, joined in StopThreads).
  std::thread flusher_;
  std::thread gc_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_STORAGE_H_
