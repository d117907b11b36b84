// What the index repairs (index_check.h, index_rebuild.h) read besides the
// location records: the live ledgers, the committed entry logs and their
// records. Offline: for a directory no bookie holds.

#ifndef BK_BOOKIE_STORAGE_INDEX_SCAN_H_
#define BK_BOOKIE_STORAGE_INDEX_SCAN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/ledger_index.h"
#include "common/env.h"

namespace bk::bookie::indexscan {

// Opens the index of ledger directory `dir`; NotFound when it has none
// (LedgerIndex::Open would create one). RocksDB's lock refuses a directory
// a running bookie holds.
absl::StatusOr<std::unique_ptr<LedgerIndex>> OpenIndex(Env* env,
                                                       const std::string& dir);

// Ledgers whose state record is not marked deleted. DataLoss when a state
// record does not decode (whether its ledger is live cannot be told).
absl::StatusOr<absl::flat_hash_set<uint64_t>> LiveLedgers(
    const LedgerIndex& index);

// Entry logs a committed batch refers to (those with metadata), by id, with
// their committed end: the records below it are the log's indexed ones. A
// log without metadata is never referred to, and the next open removes it.
absl::StatusOr<std::map<uint64_t, uint64_t>> CommittedLogs(
    const LedgerIndex& index);

// Calls fn for each record of log `log_id` in `dir` up to `end_offset`, in
// file order. Returns "" when every record up to the end was read, else
// one line saying what stopped the reading (the log missing, a bad record,
// the file ending early); the records before it were passed to fn.
std::string ScanCommittedLog(
    Env* env, const std::string& dir, uint64_t log_id, uint64_t end_offset,
    const std::function<void(const ScannedRecord&)>& fn);

}  // namespace bk::bookie::indexscan

#endif  // BK_BOOKIE_STORAGE_INDEX_SCAN_H_
