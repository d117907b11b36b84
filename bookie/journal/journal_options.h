// Options of the bookie journal, with BookKeeper's key names and defaults.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_OPTIONS_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::bookie {

class JournalObserver;

struct JournalOptions {
  // journalDirectories: one journal (file, thread, completion thread) per
  // directory; ledger L is journaled in dirs[L % dirs.size()]. The order is
  // part of the bookie's identity (cookie): changing it would interleave a
  // ledger's records over two journals.
  std::vector<std::string> dirs;

  // journalMaxSizeMB (2048): a file is rolled before a group would take it
  // past this size. A group is never split, so a file may exceed it by one
  // group.
  uint64_t max_file_size_bytes = uint64_t{2048} << 20;
  // journalPreAllocSizeMB (16): space reserved ahead of the writes.
  uint64_t preallocate_bytes = uint64_t{16} << 20;
  // journalMaxBackups (5): files older than the checkpoint kept for forensics.
  int max_backups = 5;

  // journalMaxGroupWaitMSec (2): a group is synced once its oldest add has
  // waited this long.
  absl::Duration max_group_wait = absl::Milliseconds(2);
  // journalBufferedWritesThreshold (512 KiB): a group is synced once it holds
  // this many bytes. At most kMaxBufferedWritesThreshold, so that a group
  // (threshold plus one record) stays within the reader's byte-by-byte scan
  // window (journal_format.h, kUnalignedScanBytes).
  uint64_t buffered_writes_threshold_bytes = 512 * 1024;
  static constexpr uint64_t kMaxBufferedWritesThreshold = uint64_t{8} << 20;
  // journalBufferedEntriesThreshold (0 = off): ... or this many records.
  uint64_t buffered_entries_threshold = 0;
  // journalFlushWhenQueueEmpty (false): sync as soon as no add is queued,
  // instead of waiting out max_group_wait. Lowers latency at low load.
  bool flush_when_queue_empty = false;
  // journalAdaptiveGroupCommit (ours, true; with sync_data): a group is
  // also written as soon as no add is queued while the sync stage is idle
  // (nothing written is waiting for or in a sync). Waiting out the
  // thresholds then buys no coalescing, only latency; while a sync runs,
  // groups still fill up to the thresholds and the wait, as before. So a
  // lone add is synced at once, and when few adds are in flight the device
  // is never left idle while a group fills (the leader/follower group
  // commit of RocksDB's WAL and MySQL's binlog). Such a group of up to
  // CompletionThread::kMaxInlineItems adds is synced and completed on the
  // journal thread itself (SyncThread::SyncHere): one thread wake-up fewer
  // per add at low rates. An add arriving during that sync is written
  // after it, and synced by a sync of its own, not beside it, whatever
  // max_syncs_in_flight says (bench/results/bkbench_write.md, 2026-12-06).
  bool adaptive_group_commit = true;
  // journalMaxSyncsInFlight (ours, 2; BookKeeper's force-write thread is
  // 1): syncs of the journal file that may run at once (SyncThread). With
  // more than one, a group written while a sync runs gets its own sync at
  // once, so an add waits about one sync instead of the rest of the
  // running one and then its own; groups still complete in order. "Idle"
  // for adaptive_group_commit then means a sync could start at once.
  // Measured: bench/results/bkbench_write.md (2026-12-05 18:50-19:20).
  int max_syncs_in_flight = 2;
  // journalSyncData (true). When false the journal writes but never
  // fdatasyncs a group and acknowledges adds once written to the page cache:
  // a power cut (not a process crash) loses acknowledged adds. Only for
  // deployments that accept that risk (e.g. battery-backed caches with the
  // sync done elsewhere). Files are still synced when rolled.
  bool sync_data = true;

  // journalDirectIo (ours, false): write groups with O_DIRECT from one
  // aligned buffer, each padded to 4 KiB with a padding record
  // (journal_format.h). The page cache is bypassed, which saves the kernel's
  // copy of every byte for one copy in user space and at most 4 KiB of
  // padding per group. Off by default: with reused files a group written
  // through the page cache returns once copied, and one fdatasync writes
  // back every group written meanwhile as one large write, which measured
  // faster at 16 KiB entries (1.6-2.7x in journal_bench) and no slower on
  // average at 1 KiB. Where the filesystem refuses O_DIRECT (tmpfs), groups
  // are still aligned and padded but written through the page cache.
  bool direct_io = false;

  // journalReuseFiles (BookKeeper's key; true here, false there): files the
  // checkpoint has passed, beyond max_backups, are kept (at most two) and
  // reused for the next files instead of removed and created again.
  // Writing over a file's old blocks changes no size and no extent, so a
  // group's fdatasync has only data to flush (journal_files.h; on this
  // project's test VM that is 1.5-2x the throughput of appending). Costs
  // up to two more files of journalMaxSizeMB on disk.
  bool reuse_files = true;

  // journalRemoveFromPageCache (BookKeeper's key and default, true): once a
  // sync has made bytes durable, their whole pages are dropped from the
  // page cache (WritableFile::DropCachedRange). The journal is read only at
  // replay, so cached pages serve nothing, and the next groups are then
  // written into pages just freed instead of fresh ones. That matters on a
  // VM whose host reclaims the guest's free memory: there a write into a
  // fresh page cache page cost ~3 ns/byte of CPU against ~0.2 into a warm
  // one (dd, bench/results/bkbench_write.md), and after a few GB written
  // the journal thread spent 74 % of its time in that copy. End to end
  // (3 bookies, E3/WQ3/AQ2 at the peak rate, five alternating pairs) the
  // bookies spent 16 % less CPU per entry with it and wrote 9 % more; the
  // journal alone (journal_bench pagecache) saved no CPU at 16 KiB, where
  // the drop's own cost shows. No effect with direct_io (nothing cached).
  bool remove_from_page_cache = true;

  // journalSkipCorruptRecords (ours, false): see journal_reader.h.
  bool skip_corrupt_records = false;

  // journalCutNewestTailAt (ours, empty): "<journal file>:<offset>", for one
  // start after a power loss. When replay finds invalid bytes followed by
  // valid records in the newest file of a directory (a later page of the
  // last, unsynced group reached the disk before an earlier one), it refuses
  // start and prints this override with the file and offset filled in.
  // Given back, it makes replay cut exactly that file at exactly that
  // offset, as a torn tail. It changes nothing elsewhere: another offset,
  // another file, or damage in an older file still refuses start. Harmless
  // when left set: every start writes a new newest file.
  std::string cut_newest_tail_at;

  // Told about every group written, on the journal thread (for metrics).
  // Not owned; must outlive the Journal. May be null.
  JournalObserver* observer = nullptr;

  // InvalidArgument naming the first bad field.
  absl::Status Validate() const;
};

// journalCutNewestTailAt, parsed.
struct TailCut {
  std::string path;  // a journal file
  uint64_t offset = 0;
};
// Empty `value`: nullopt. InvalidArgument naming the key when it is not
// "<path>:<offset>" (the last ':' separates them).
absl::StatusOr<std::optional<TailCut>> ParseTailCut(const std::string& value);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_OPTIONS_H_
