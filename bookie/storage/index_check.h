// CheckLocationIndex: every location record of a stopped bookie's ledger
// directory checked against its entry logs, changing nothing: the question
// an operator asks before rebuilding the index (index_rebuild.h).
//
// Both ways:
//   - each location record must parse; each entry it locates must be
//     readable where it says (the record there has the entry's ledger and
//     id and a good CRC, as a read checks it); and its ledger must be live
//     in the index's "ledgers" family (a deleted ledger's locations are
//     removed with it);
//   - each record of a live ledger in the committed part of an entry log
//     (index_scan.h) must have a location: an entry the index lost is one
//     the bookie no longer serves, though its log holds it. The rebuild
//     puts those back.
// Reads every indexed entry once and every committed log once, so it takes
// about twice as long as reading the directory's data.

#ifndef BK_BOOKIE_STORAGE_INDEX_CHECK_H_
#define BK_BOOKIE_STORAGE_INDEX_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/env.h"

namespace bk::bookie {

struct IndexCheckReport {
  uint64_t location_records = 0;
  uint64_t entries_checked = 0;
  // Entries not readable where the index says (a missing log, a record
  // of another entry, a bad CRC).
  uint64_t entries_bad = 0;
  // Records whose value does not parse (their entries are not checked).
  uint64_t records_bad = 0;
  // Entries indexed for ledgers the index does not hold as live.
  uint64_t entries_of_dead_ledgers = 0;
  // Committed logs read, those that could not be read whole, and the
  // records of live ledgers in them that have no location.
  uint64_t logs_read = 0;
  uint64_t logs_incomplete = 0;
  uint64_t entries_unindexed = 0;
  // One line per fault, the first kMaxProblems of them.
  std::vector<std::string> problems;
  static constexpr size_t kMaxProblems = 100;

  bool clean() const {
    return entries_bad == 0 && records_bad == 0 &&
           entries_of_dead_ledgers == 0 && logs_incomplete == 0 &&
           entries_unindexed == 0;
  }
};

// Checks the locations of the ledger directory `dir` (the directory that
// holds the entry logs and "index/"). NotFound when `dir` has no index;
// the RocksDB lock refuses a directory a running bookie holds.
absl::StatusOr<IndexCheckReport> CheckLocationIndex(Env* env,
                                                    const std::string& dir);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_INDEX_CHECK_H_
