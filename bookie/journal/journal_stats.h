// What the journal reports about itself: counters for metrics and for the
// monitor's fallback utilisation (busy time), and an observer hook.
// No prometheus here: the bookie's probe reads these.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_STATS_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_STATS_H_

#include <atomic>
#include <cstdint>

namespace bk::bookie {

// A snapshot. Totals since start; summed over directories by Journal.
struct JournalStats {
  uint64_t bytes_written = 0;  // record bytes (headers + payloads)
  uint64_t padding_bytes = 0;  // padding records (journalDirectIo)
  // Payload bytes of the records written, and of them the bytes the journal
  // copied in user space (into the aligned image of a direct group; a
  // page-cache group is written from the callers' buffers): counted where
  // the copy happens, so copies per add is copied / payload.
  uint64_t payload_bytes = 0;
  uint64_t payload_bytes_copied = 0;
  uint64_t records_written = 0;
  uint64_t groups_written = 0;  // group writes
  uint64_t syncs = 0;           // fdatasync calls for groups and rolls
  uint64_t sync_nanos_total = 0;
  uint64_t sync_nanos_max = 0;
  uint64_t write_nanos_total = 0;
  // Time spent in write + sync: the share of wall time the journal device
  // was busy for us (the monitor's fallback utilisation).
  uint64_t busy_nanos_total = 0;
  uint64_t queue_depth = 0;  // adds queued, not yet taken by the thread
  uint64_t files_created = 0;
  uint64_t files_removed = 0;
  uint64_t files_reused = 0;  // recycled instead of created (reuse_files)
  uint64_t adds_failed = 0;   // completed with an error
};

// Where a group's time went between its first record's arrival and its
// callbacks, one stage after another (BookKeeper's journal queue,
// force-write queue and callback queue latencies):
//   queue_nanos       oldest record queued -> the group's write starts
//                     (the journal thread busy, or the group wait);
//   write_nanos       the write itself;
//   sync_queue_nanos  write returned -> the sync that covers it starts
//                     (the previous sync still running);
//   sync_nanos        that sync;
//   then JournalCallbackEvent::queue_nanos, sync returned -> the group's
//   callbacks start (earlier groups' callbacks still running).
struct JournalGroupEvent {
  uint64_t records = 0;
  uint64_t bytes = 0;
  int64_t write_nanos = 0;
  // The sync that made this group durable, reported with the first group it
  // covered (0 for the others, and when journalSyncData=false).
  int64_t sync_nanos = 0;
  int64_t queue_nanos = 0;
  // -1 when journalSyncData=false (no sync).
  int64_t sync_queue_nanos = -1;
};

// One group's callbacks about to run.
struct JournalCallbackEvent {
  uint64_t records = 0;
  // Synced (written, when journalSyncData=false) -> callbacks start.
  int64_t queue_nanos = 0;
};

// OnGroup is called after each group is written and synced (on its sync
// thread; on the journal thread when journalSyncData is false); OnCallbacks
// on the thread about to run a group's callbacks, before it runs them. Both
// must be quick and must not call back into the Journal.
class JournalObserver {
 public:
  virtual ~JournalObserver() = default;
  virtual void OnGroup(const JournalGroupEvent& event) = 0;
  virtual void OnCallbacks(const JournalCallbackEvent& event) { (void)event; }
};

// The live counters behind JournalStats. Own synchronisation (relaxed
// atomics: each is a monotonic count read for reporting).
struct JournalCounters {
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> padding_bytes{0};
  std::atomic<uint64_t> payload_bytes{0};
  std::atomic<uint64_t> payload_bytes_copied{0};
  std::atomic<uint64_t> records_written{0};
  std::atomic<uint64_t> groups_written{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> sync_nanos_total{0};
  std::atomic<uint64_t> sync_nanos_max{0};
  std::atomic<uint64_t> write_nanos_total{0};
  std::atomic<uint64_t> files_created{0};
  std::atomic<uint64_t> files_removed{0};
  std::atomic<uint64_t> files_reused{0};
  std::atomic<uint64_t> adds_failed{0};

  void AddTo(JournalStats* s) const;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_STATS_H_
