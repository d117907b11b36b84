// LedgerIndex: the RocksDB database of one ledger directory. Only index
// records go through RocksDB; entry data never does.
//
// Column families and their records (this header owns the key and location
// formats; ledger_state.h and entry_log_metadata.h own the other values):
//
//   default   "locations": key (ledger id u64 BE, entry id u64 BE), 16 bytes,
//             so that byte order is (ledger, entry) order and a ledger's
//             entries are contiguous; the entry id is the first of a run
//             of consecutive entries whose locations the value holds
//             (location_run.h; a run of one is (log id, offset)). A
//             ledger's records never overlap: an entry has at most one
//             record covering it, the last one at or before it.
//   ledgers   key ledger id u64 BE -> LedgerState (ledger_state.h).
//   entrylogs key log id u64 BE -> EntryLogMetadata (entry_log_metadata.h).
//
// Threads: all methods are thread-safe (RocksDB is). Atomicity across
// records comes only from IndexBatch; the owner orders batches.
// Durability: writes with sync=true are durable when the call returns.
// Probe: writes() and synced_writes() count the writes made so far (what a
// test checks to see that a path writes nothing here, since RocksDB does
// not go through the bookie's Env).

#ifndef BK_BOOKIE_STORAGE_LEDGER_INDEX_H_
#define BK_BOOKIE_STORAGE_LEDGER_INDEX_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "bookie/storage/entry_logger.h"
#include "bookie/storage/location_run.h"

namespace rocksdb {
class Iterator;
class WriteBatch;
}  // namespace rocksdb

namespace bk::bookie {

namespace indexformat {
inline constexpr size_t kLocationKeySize = 16;
inline constexpr size_t kIdKeySize = 8;
}  // namespace indexformat

// A group of index changes applied atomically by LedgerIndex::Commit.
class IndexBatch {
 public:
  IndexBatch();
  ~IndexBatch();
  IndexBatch(const IndexBatch&) = delete;
  IndexBatch& operator=(const IndexBatch&) = delete;

  void PutLedgerState(uint64_t ledger_id, absl::string_view encoded);
  void PutLogMetadata(uint64_t log_id, absl::string_view encoded);
  void DeleteLogMetadata(uint64_t log_id);
  size_t count() const;

 private:
  friend class LedgerIndex;
  std::unique_ptr<rocksdb::WriteBatch> batch_;
  void* locations_cf_ = nullptr;  // set by LedgerIndex::NewBatch
  void* ledgers_cf_ = nullptr;
  void* logs_cf_ = nullptr;
};

// Looks up many locations through one RocksDB iterator, keeping the last
// record it read, so lookups in ascending order within a run cost no seek:
// how compaction checks every record of a log. It sees the index as it
// was when made (the iterator's snapshot) and pins that version's files
// and memtables until destroyed: make a new one to see later writes, and
// do not keep one across long waits. Not thread-safe.
class LocationLookup {
 public:
  ~LocationLookup();
  LocationLookup(const LocationLookup&) = delete;
  LocationLookup& operator=(const LocationLookup&) = delete;

  // As LedgerIndex::GetLocation.
  absl::StatusOr<EntryLocation> Get(uint64_t ledger_id, int64_t entry_id);

 private:
  friend class LedgerIndex;
  explicit LocationLookup(std::unique_ptr<rocksdb::Iterator> it);
  std::unique_ptr<rocksdb::Iterator> it_;
  bool cached_ = false;  // ledger_, first_ and value_ hold a record
  uint64_t ledger_ = 0;
  uint64_t first_ = 0;
  std::string value_;
};

class LedgerIndex {
 public:
  // Opens (creating if missing) the database in directory `path`.
  static absl::StatusOr<std::unique_ptr<LedgerIndex>> Open(
      const std::string& path);
  ~LedgerIndex();

  std::unique_ptr<IndexBatch> NewBatch();
  absl::Status Commit(IndexBatch* batch, bool sync);

  // Adds to `batch` the records saying that the entries of `ledger_id`
  // now live where `entries` says, as few records as the runs allow.
  // Records that held any of these entries before are rewritten without
  // them, so records stay disjoint: found by a seek (about 4 us), skipped
  // when `may_overlap` is false, which the caller may pass only when it
  // knows the ledger has no indexed entry at or above entries.front().
  // REQUIRES: entries ascending by id and distinct; at most one call per
  // ledger per batch, and no other location write between this call and
  // the batch's commit (the owner serialises them): the records it
  // rewrites are read now. `max_run_entries` < locrun::kMaxRunEntries
  // writes shorter runs (1: the format of bookies before runs, for a
  // rollback; index_rebuild.h).
  absl::Status PutLocations(IndexBatch* batch, uint64_t ledger_id,
                            absl::Span<const LocatedEntry> entries,
                            bool may_overlap = true,
                            size_t max_run_entries = locrun::kMaxRunEntries);

  // NotFound when the entry has no location.
  absl::StatusOr<EntryLocation> GetLocation(uint64_t ledger_id,
                                            int64_t entry_id) const;
  std::unique_ptr<LocationLookup> NewLookup() const;
  // The highest entry id with a location, or -1.
  absl::StatusOr<int64_t> GetLastEntryId(uint64_t ledger_id) const;
  // Entry ids with a location, ascending, from first_entry_id on, at most
  // max_entries of them, appended to *out.
  absl::Status ListEntries(uint64_t ledger_id, int64_t first_entry_id,
                           size_t max_entries, std::vector<int64_t>* out) const;
  // How many location records the ledger has (a probe: tests, and what a
  // run of entries costs the index).
  absl::StatusOr<uint64_t> CountLocationRecords(uint64_t ledger_id) const;
  // Removes every location of the ledger (one range tombstone), durably.
  absl::Status DeleteLocations(uint64_t ledger_id);
  // Removes every location of every ledger, durably (index_rebuild.h).
  absl::Status DeleteAllLocations();

  absl::Status PutLedgerState(uint64_t ledger_id, absl::string_view encoded,
                              bool sync);
  // Removes the ledger's state record (a purged tombstone).
  absl::Status DeleteLedgerState(uint64_t ledger_id, bool sync);
  // Calls fn for every record of the "ledgers" / "entrylogs" families.
  absl::Status ForEachLedgerState(
      const std::function<absl::Status(uint64_t, absl::string_view)>& fn) const;
  absl::Status ForEachLogMetadata(
      const std::function<absl::Status(uint64_t, absl::string_view)>& fn) const;
  // Calls fn for every location record, in (ledger, first entry) order. A
  // record that does not parse is passed as its status (fn decides whether
  // to go on); the run is valid only during the call.
  absl::Status ForEachLocationRun(
      const std::function<
          absl::Status(uint64_t ledger_id, uint64_t first_entry,
                       const absl::StatusOr<locrun::RunView>& run)>& fn) const;

  // Writes (batches, puts, deletes) since open, and those of them synced.
  uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }
  uint64_t synced_writes() const {
    return synced_writes_.load(std::memory_order_relaxed);
  }
  // Location records put into batches, and PutLocations' reads (counted
  // when put, committed or not).
  uint64_t location_records() const {
    return location_records_.load(std::memory_order_relaxed);
  }
  uint64_t overlap_reads() const {
    return overlap_reads_.load(std::memory_order_relaxed);
  }

 private:
  struct Rep;
  explicit LedgerIndex(std::unique_ptr<Rep> rep);
  void CountWrite(bool sync);

  std::unique_ptr<Rep> rep_;
  // Own synchronisation.
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> synced_writes_{0};
  std::atomic<uint64_t> location_records_{0};
  std::atomic<uint64_t> overlap_reads_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LEDGER_INDEX_H_
