// Options of the ledger storage, with BookKeeper's key names. Sizes are in
// bytes, times are absl::Duration; units come last in names.

#ifndef BK_BOOKIE_STORAGE_STORAGE_OPTIONS_H_
#define BK_BOOKIE_STORAGE_STORAGE_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace bk::bookie {

struct LedgerStorageOptions {
  // ledgerDirectories: one per disk; ledgers are spread over them by id.
  std::vector<std::string> ledger_dirs;
  // The journals' directories (journalDirectories; the store fills them
  // in). A ledger directory on a disk no journal is on writes its flushes
  // behind (flush_entry_log_bytes).
  std::vector<std::string> journal_dirs;
  // Whether `ledger_dir` shares a disk with a journal, told by whoever can
  // see the disks behind the filesystems (the daemon: partitions of one
  // disk are one disk; monitor/block_device.h). Unset: by the filesystems'
  // device numbers (st_dev), which tell a disk's partitions apart.
  std::function<bool(const std::string& ledger_dir)> shares_journal_disk;

  // dbStorage_writeCacheMaxSizeMb (both halves, all dirs): 64 MiB.
  uint64_t write_cache_bytes = 64ull << 20;
  // dbStorage_maxThrottleTimeMs: how long an add waits for room before it
  // fails with ResourceExhausted: 10 s.
  absl::Duration max_throttle_time = absl::Seconds(10);
  // dbStorage_readAheadCacheMaxSizeMb (all dirs): 64 MiB; the daemon's: 32.
  uint64_t read_cache_bytes = 64ull << 20;
  // dbStorage_readAheadCacheBatchSize: entries read per miss, the missed one
  // included: 100.
  int read_ahead_batch_size = 100;
  // logSizeLimit: an entry log is rolled before it passes this: 1 GiB.
  uint64_t entry_log_size_limit = 1ull << 30;

  // flushEntrylogBytes: a flush writes its entry log in steps of this many
  // bytes (0: all of it at once, at the end): 1 MiB. A device flush
  // (fdatasync) waits for every write queued ahead of it, from any
  // process; one 16 MiB entry-log sync made every journal on the same disk
  // wait for those 16 MiB (measured: cluster-wide add stalls of 100-500 ms
  // on a disk shared by 9 bookies). On a journal's disk each step is
  // synced before the next is copied, which leaves the disk to the
  // journals between steps. On a disk of its own each step is
  // written behind (EntryLogWriter::WriteBehind: the disk writes it while
  // the next is copied) and the log synced once, at the end: no journal
  // waits behind it, and the flush ends sooner. (Writing behind on a
  // journal's disk raised the end-to-end add p99 by about a tenth in ten
  // pairs: bench/results/bkbench_write.md, 2026-12-05.)
  uint64_t flush_entry_log_bytes = 1ull << 20;

  // entryLogRemoveFromPageCache (ours, true) and entryLogPageCacheKeepBytes
  // (ours, 64 MiB): each entry-log sync of a flush drops from the page cache
  // the synced pages more than the keep bytes behind the log's end. The
  // newest data stays cached for readers catching up; the pages dropped
  // behind it are what the next flushes write into, warm, instead of fresh
  // pages: for a VM whose host reclaims free memory, where a fresh page
  // cache page costs ~3 ns/byte to write and a warm one ~0.2, and the flush
  // thread spent 70 % of its time in that copy after a few GB written.
  // On since 2026-12-02: four alternating pairs of peak runs on a quiet
  // machine gave 14.3-15.2 against 17.2-20.2 us of bookie CPU per entry and
  // 84-90k against 69-78k entries/s, with a minute-long catch-up's speed
  // and read-cache hits unchanged (bench/results/bkbench_write.md). Reads
  // of entries more than the keep bytes behind a log's end come from the
  // read cache or the disk (a first read of a flushed ledger measured 2-3x
  // slower with keep 0). Keep 0: drop everything synced.
  bool entry_log_remove_from_page_cache = true;
  uint64_t entry_log_page_cache_keep_bytes = 64ull << 20;

  // entryLogDirectIo (ours, false; BookKeeper's direct entry logger of
  // BP-47 is the same idea): entry logs are written with O_DIRECT from an
  // aligned buffer, each sync padding its last 4 KiB block (version 2 logs,
  // entry_log_format.h). The kernel then neither copies flushed bytes into
  // its page cache nor writes them back, and no page is dropped; reads of
  // flushed entries the caches miss come from the disk (as with keep bytes
  // 0 above). Where O_DIRECT is refused (tmpfs) logs are written as
  // without it. Logs written with it are refused by bookies that predate it.
  bool entry_log_direct_io = false;

  // flushInterval: the background flush runs at least this often: 60 s.
  absl::Duration flush_interval = absl::Seconds(60);
  // Testing aid: false turns off the background flusher (only Flush()
  // flushes; a full cache then throttles until Flush() is called).
  bool background_flush = true;

  // gcWaitTime: how often the background GC runs (0: only when asked,
  // LedgerStorage::RequestGc): 15 min.
  absl::Duration gc_wait_time = absl::Minutes(15);
  // minorCompactionThreshold / minorCompactionInterval: 0.2, 1 h.
  double minor_compaction_threshold = 0.2;
  absl::Duration minor_compaction_interval = absl::Hours(1);
  // majorCompactionThreshold / majorCompactionInterval: 0.8, 24 h.
  double major_compaction_threshold = 0.8;
  absl::Duration major_compaction_interval = absl::Hours(24);
  // compactionRateByBytes: bytes per second compaction may copy (0: no
  // limit): 1 MB/s.
  uint64_t compaction_rate_bytes_per_second = 1000000;

  // deletedLedgerRetentionSeconds: a deleted ledger's state (its tombstone)
  // is kept at least this long, so late adds get a clear NotFound; GC drops
  // it afterwards, once no flush or journal replay can bring the ledger
  // back: 3600 s.
  absl::Duration deleted_ledger_retention = absl::Hours(1);

  // Shards of the write cache, read cache and ledger state map, per dir.
  int cache_shards = 16;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_STORAGE_OPTIONS_H_
