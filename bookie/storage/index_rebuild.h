// RebuildLocationIndex: a stopped bookie's location index rebuilt from its
// entry logs, for a ledger directory whose "locations" records were lost or
// damaged (BookKeeper's rebuild-db-ledger-locations-index).
//
// The entry logs hold every flushed entry with its ledger and entry id, so
// the locations can be read back from them. What the rebuild trusts, and
// why:
//   - the "ledgers" family: which ledgers are live. Entries of a ledger
//     marked deleted, or with no state record, are not indexed: a deleted
//     ledger's entries stay in its logs until compaction, and indexing them
//     would bring the ledger back. (A flush writes a new ledger's state in
//     the same batch as its first locations, so a live ledger always has
//     one.)
//   - the "entrylogs" family: which logs were committed, and how far. Only
//     those logs, up to their committed end, are read: a log without
//     metadata was never referred to by a committed batch and the next open
//     removes it; bytes past the end are a flush that never committed.
// Logs are read in id order and a later copy of an entry replaces an
// earlier one: new records only ever go to the newest log (flushes, a
// recovery's re-add, compaction's copies), so the highest log holding an
// entry holds its current copy.
//
// Every location record is removed first, so what the index holds after is
// what the logs hold, nothing else. An interrupted rebuild leaves a partial
// index; running it again starts over. Entries that were only in the journal
// are not in any log; the bookie's journal replay adds them at its next
// start, as after any crash.
//
// With max_run_entries 1 it also rolls a directory back to the index
// format of bookies from before runs.
//
// The ledger states and the log metadata are left as they are. A log record
// that cannot be read (a bad CRC or length inside the committed extent)
// ends the reading of that log: the entries before it are indexed, and the
// report names the log, so an operator can re-replicate what it held.

#ifndef BK_BOOKIE_STORAGE_INDEX_REBUILD_H_
#define BK_BOOKIE_STORAGE_INDEX_REBUILD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bookie/storage/location_run.h"
#include "common/env.h"

namespace bk::bookie {

struct IndexRebuildReport {
  uint64_t live_ledgers = 0;
  uint64_t logs_read = 0;
  uint64_t records_read = 0;
  // Records of live ledgers, each indexed (a later copy replacing an
  // earlier one counts twice).
  uint64_t entries_indexed = 0;
  // Records of ledgers deleted or unknown to the index: not indexed.
  uint64_t records_skipped = 0;
  // Location records written (runs of entries, location_run.h).
  uint64_t location_records = 0;
  // One line per log that could not be read whole; empty when all were.
  std::vector<std::string> problems;
};

struct IndexRebuildOptions {
  // Entries per location record, at most. 1 writes one record per entry:
  // the index format of bookies from before runs (location_run.h), which
  // read a longer run as DataLoss; the way to roll a directory back to
  // one. Between 1 and locrun::kMaxRunEntries.
  size_t max_run_entries = locrun::kMaxRunEntries;
};

// Rebuilds the locations of the ledger directory `dir` (the directory that
// holds the entry logs and "index/"). NotFound when `dir` has no index;
// the RocksDB lock refuses a directory a running bookie holds.
absl::StatusOr<IndexRebuildReport> RebuildLocationIndex(
    Env* env, const std::string& dir, const IndexRebuildOptions& options = {});

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_INDEX_REBUILD_H_
