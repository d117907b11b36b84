// Plain counters of the ledger storage (the daemon turns them into metrics
// through a probe object). All counts since open.

#ifndef BK_BOOKIE_STORAGE_STORAGE_STATS_H_
#define BK_BOOKIE_STORAGE_STORAGE_STATS_H_

#include <cstdint>

namespace bk::bookie {

struct StorageStats {
  uint64_t added_entries = 0;
  uint64_t added_bytes = 0;
  uint64_t throttled_adds = 0;  // adds that had to wait for room
  uint64_t rejected_adds = 0;   // adds that failed with ResourceExhausted
  uint64_t write_cache_bytes = 0;
  uint64_t write_cache_entries = 0;
  uint64_t read_cache_bytes = 0;
  uint64_t write_cache_hits = 0;
  uint64_t read_cache_hits = 0;
  uint64_t read_cache_misses = 0;  // reads that went to an entry log
  uint64_t read_ahead_entries = 0;
  uint64_t corrupt_reads = 0;  // DataLoss on read
  uint64_t flushes = 0;
  uint64_t flushed_entries = 0;
  uint64_t flushed_bytes = 0;
  uint64_t entry_log_bytes = 0;  // on disk, all logs
  uint64_t deleted_ledgers = 0;
  uint64_t purged_ledgers = 0;     // tombstones of deleted ledgers dropped
  uint64_t ledger_tombstones = 0;  // deleted ledgers not purged yet (gauge)
  uint64_t compacted_logs = 0;     // rewritten then removed
  uint64_t removed_logs = 0;       // removed (with or without rewriting)
  uint64_t compaction_moved_entries = 0;
  uint64_t compaction_moved_bytes = 0;
  uint64_t compaction_reclaimed_bytes = 0;
  // Writes to the RocksDB indexes, and those of them synced (a probe: no
  // add should make either move; flushes, deletions and GC do).
  uint64_t index_writes = 0;
  uint64_t index_synced_writes = 0;
  // Location records written by flushes and compaction (flushed entries
  // over it: the runs' length), and the reads of the index made first
  // because new locations might overlap old ones (a re-add, a move).
  uint64_t index_location_records = 0;
  uint64_t index_overlap_reads = 0;
  // Wall time spent in flushes (entry-log writes, syncs, index batches):
  // the monitor's fallback ledger utilisation. Storage-wide, not per dir.
  uint64_t flush_busy_nanos = 0;

  double read_cache_hit_ratio() const {
    const uint64_t hits = write_cache_hits + read_cache_hits;
    const uint64_t all = hits + read_cache_misses;
    return all == 0 ? 0.0 : static_cast<double>(hits) / all;
  }
  StorageStats& operator+=(const StorageStats& o);
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_STORAGE_STATS_H_
