// LedgerDir: the storage of one ledger directory (one disk): its write
// cache, read cache, entry logs, RocksDB index and ledger states. The
// LedgerStorage facade spreads ledgers over several of these.
//
// Add path: AddEntry puts the handle into the write cache (sharded; no lock
// shared by all adds). Once the active half is three quarters full it asks
// the owner for a flush (request_flush), so an idle flusher swaps before any
// add finds the half full. An add that does find it full asks again and
// waits up to max_throttle_time for the halves to swap, then fails with
// ResourceExhausted.
//
// Flush (one at a time): swap the halves, append the flushing half sorted by
// (ledger, entry) to the current entry log in steps of
// flush_entry_log_bytes (each synced, or written behind and synced at the
// end), then commit all
// locations, the entry-log metadata and the ledger states changed since the
// last flush (ledger_state_table.h) in one synced WriteBatch, then clear
// the half. So the index never points at unsynced data, and an entry is
// readable (from the cache, then from the log) at every moment.
//
// Deletion: DeleteLedger drops the ledger's locations and keeps its state
// row marked deleted (a tombstone): late adds get NotFound, flushes skip its
// cached entries, reads find nothing. GC purges the tombstone (the id
// becomes unknown) once no flush and no journal replay can bring entries
// back and the retention has passed (ledger_tombstones.h). A late add after
// the purge is taken as the add of a new ledger, as in BookKeeper: the next
// GC pass, whose filter says the id is deleted in the metadata store,
// deletes it again. Flushes, compaction and live-byte counts treat an
// unknown ledger as dead, so a stray cached entry of a purged ledger is
// never indexed.
//
// Sticky failure: a failed entry-log write or sync, or a failed index
// commit, breaks the directory: adds and flushes fail from then on with a
// status saying why; reads still work. Only a restart (with journal replay)
// recovers.
//
// Threads: every public method is thread-safe. Lock order:
// flush_mu_ -> write_mu_ -> (index, state shards) ; throttle_mu_ and
// broken_mu_ are leaves. A ledger's own lock (LedgerSlot::mu) comes before
// write_mu_ (DeleteLedger) and is never taken under flush_mu_ or write_mu_:
// an add holds it while it waits for room, which only a flush makes.

#ifndef BK_BOOKIE_STORAGE_LEDGER_DIR_H_
#define BK_BOOKIE_STORAGE_LEDGER_DIR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bookie/storage/entry_buffer.h"
#include "bookie/storage/entry_log_metadata.h"
#include "bookie/storage/entry_logger.h"
#include "bookie/storage/flush_progress.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/ledger_state_table.h"
#include "bookie/storage/ledger_tombstones.h"
#include "bookie/storage/read_cache.h"
#include "bookie/storage/storage_stats.h"
#include "bookie/storage/write_cache.h"
#include "common/env.h"

namespace bk::bookie {

// Says whether a ledger has been deleted in the metadata store. One
// CollectGarbage call asks about its live ledgers in ascending id order, on
// the calling thread; false when unsure (a ledger is never deleted on doubt).
using LedgerDeletedFn = std::function<bool(uint64_t ledger_id)>;
// Told of each ledger that GC deleted (on the filter's word) or whose
// tombstone it purged, after the fact, on the GC thread, while the
// directory's GC lock is held (it must not start a GC itself).
using LedgerRemovedFn = std::function<void(uint64_t ledger_id)>;

struct GcResult {
  uint64_t deleted_ledgers = 0;
  uint64_t purged_ledgers = 0;  // tombstones dropped
  uint64_t compacted_logs = 0;
  uint64_t removed_logs = 0;
  uint64_t moved_entries = 0;
  uint64_t moved_bytes = 0;
  uint64_t reclaimed_bytes = 0;
  GcResult& operator+=(const GcResult& o);
};

class LedgerDir {
 public:
  struct Options {
    std::string dir;
    uint64_t write_cache_bytes = 0;
    uint64_t read_cache_bytes = 0;
    int read_ahead_batch_size = 1;
    uint64_t entry_log_size_limit = 1ull << 30;
    // Write the entry log in steps of this many bytes in a flush (0: all
    // at its end), each step synced, or with `write_behind` written behind
    // and synced once at the end; see
    // LedgerStorageOptions::flush_entry_log_bytes.
    uint64_t flush_entry_log_bytes = 0;
    bool write_behind = false;
    // See LedgerStorageOptions::entry_log_remove_from_page_cache and
    // entry_log_page_cache_keep_bytes.
    bool remove_from_page_cache = false;
    uint64_t page_cache_keep_bytes = 0;
    // See LedgerStorageOptions::entry_log_direct_io.
    bool direct_io = false;
    absl::Duration max_throttle_time = absl::Seconds(10);
    uint64_t compaction_rate_bytes_per_second = 0;
    int shards = 16;
    // How long a deleted ledger's tombstone is kept at least.
    absl::Duration deleted_ledger_retention = absl::Hours(1);
  };

  // Opens or creates the directory. Removes entry logs that no committed
  // index record refers to (left by a crash mid-flush); refuses (DataLoss)
  // when the index refers to a log that is missing. `request_flush` is
  // called (from adding threads) when the active write-cache half is three
  // quarters full, and again by an add that finds it full.
  // `progress` numbers the owner's flushes (it must outlive the dir); every
  // Flush of this dir must run between progress->Begin() and the report
  // of that generation.
  static absl::StatusOr<std::unique_ptr<LedgerDir>> Open(
      Env* env, const Options& options, const FlushProgress* progress,
      std::function<void()> request_flush);
  ~LedgerDir();

  // Adds (or replaces) an entry. NotFound if the ledger was deleted,
  // ResourceExhausted after max_throttle_time without room, the sticky
  // error once broken.
  absl::Status AddEntry(uint64_t ledger_id, int64_t entry_id,
                        const EntryBuffer& data, uint32_t data_crc);
  // entry_id -1 means the last entry. NotFound if absent, DataLoss if the
  // stored copy fails its checks (never served).
  absl::StatusOr<EntryBuffer> GetEntry(uint64_t ledger_id, int64_t entry_id);
  // -1 when the ledger has no entries; NotFound if it was deleted.
  absl::StatusOr<int64_t> GetLastEntryId(uint64_t ledger_id);
  // Entry ids held, ascending, from first_entry_id on, at most max_entries.
  absl::StatusOr<std::vector<int64_t>> ListEntries(uint64_t ledger_id,
                                                   int64_t first_entry_id,
                                                   size_t max_entries);

  LedgerStateTable& states() { return *states_; }

  // Removes the ledger's locations, marks it deleted (durably), drops it
  // from the read cache and queues its tombstone for purging. A no-op for
  // an unknown or already deleted ledger.
  absl::Status DeleteLedger(uint64_t ledger_id);

  absl::Status Flush();
  // Deletes ledgers that `deleted` reports (if given), purges the
  // tombstones that may go, then removes entry logs with no live data and
  // compacts those whose live fraction is below `threshold`. `removed` (if
  // given) hears of every ledger deleted or purged.
  absl::StatusOr<GcResult> CollectGarbage(
      const LedgerDeletedFn& deleted, double threshold,
      const LedgerRemovedFn& removed = nullptr);

  // OK while writable; otherwise the error that broke it.
  absl::Status writable() const;
  StorageStats stats() const;
  // Bytes in the active write-cache half (to decide when to flush).
  uint64_t write_cache_active_bytes() const;
  uint64_t write_cache_half_bytes() const;

 private:
  LedgerDir(Env* env, const Options& options, const FlushProgress* progress,
            std::function<void()> request_flush);

  // Purges the tombstones that may go; returns how many.
  absl::StatusOr<uint64_t> PurgeTombstones(const LedgerRemovedFn& removed);
  absl::Status Break(const absl::Status& cause);
  // Adds the locations of a ledger's flushed entries (ascending) to
  // `batch`, reading the index first only when they may overlap it.
  absl::Status IndexFlushed(IndexBatch* batch, uint64_t ledger_id,
                            absl::Span<const LocatedEntry> entries)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  absl::StatusOr<EntryBuffer> ReadFromLog(uint64_t ledger_id, int64_t entry_id);
  absl::StatusOr<EntryBuffer> ReadAhead(const EntryLogReader& reader,
                                        uint64_t offset, uint64_t ledger_id,
                                        int64_t entry_id);
  absl::StatusOr<GcResult> CompactLog(uint64_t log_id, uint64_t end_offset);
  absl::Status RemoveLog(uint64_t log_id);
  void ThrottleIfNeeded(uint64_t* bytes_copied, int64_t start_nanos);

  // Constant after construction.
  Env* const env_;
  const Options options_;
  const FlushProgress* const progress_;
  const std::function<void()> request_flush_;
  std::unique_ptr<LedgerIndex> index_;
  std::unique_ptr<LedgerStateTable> states_;
  std::unique_ptr<EntryLogger> logger_;
  std::unique_ptr<WriteCache> write_cache_;
  std::unique_ptr<ReadCache> read_cache_;

  // One garbage collection at a time.
  absl::Mutex gc_mu_ ABSL_ACQUIRED_BEFORE(write_mu_);

  // One flush at a time; owns the flush scratch.
  absl::Mutex flush_mu_ ABSL_ACQUIRED_BEFORE(write_mu_);
  // A flush's scratch, kept from flush to flush (no allocation, warm).
  std::vector<WriteCache::Item> flush_items_ ABSL_GUARDED_BY(flush_mu_);
  std::vector<EntryLogItem> flush_log_items_ ABSL_GUARDED_BY(flush_mu_);
  std::vector<EntryLocation> flush_locations_ ABSL_GUARDED_BY(flush_mu_);

  // Serialises entry-log appends and syncs, index location commits and
  // ledger deletion.
  absl::Mutex write_mu_;
  std::map<uint64_t, EntryLogMetadata> log_meta_ ABSL_GUARDED_BY(write_mu_);
  // Per ledger flushed since open, the highest entry id the index holds,
  // or above it (-1: none), so a flush that only appends past it writes
  // its records without reading the index first. Forgotten at deletion;
  // cleared whole past kMaxIndexedLast ledgers (a miss costs one seek).
  absl::flat_hash_map<uint64_t, int64_t> indexed_last_
      ABSL_GUARDED_BY(write_mu_);
  static constexpr size_t kMaxIndexedLast = 1 << 17;

  // Adds waiting for room wait for swap_gen_ to move.
  absl::Mutex throttle_mu_;
  uint64_t swap_gen_ ABSL_GUARDED_BY(throttle_mu_) = 0;
  // A flush is asked for when the active half is this full (AddEntry).
  static constexpr uint64_t kEarlyFlushNumerator = 3;
  static constexpr uint64_t kEarlyFlushDenominator = 4;
  // The swap_gen_ of the last half an early flush was asked for (none:
  // the maximum).
  std::atomic<uint64_t> early_flush_gen_{~uint64_t{0}};

  mutable absl::Mutex broken_mu_;
  absl::Status broken_ ABSL_GUARDED_BY(broken_mu_);

  // Own synchronisation.
  LedgerTombstones tombstones_;
  std::atomic<bool> is_broken_{false};
  struct Counters {
    std::atomic<uint64_t> added_entries{0}, added_bytes{0}, throttled_adds{0},
        rejected_adds{0}, write_cache_hits{0}, read_cache_hits{0},
        read_cache_misses{0}, read_ahead_entries{0}, corrupt_reads{0},
        flushes{0}, flushed_entries{0}, flushed_bytes{0}, deleted_ledgers{0},
        purged_ledgers{0}, compacted_logs{0}, removed_logs{0}, moved_entries{0},
        moved_bytes{0}, reclaimed_bytes{0};
  };
  mutable Counters counters_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_DIR_H_
