// Offline reading of an entry log (storage/entry_log_format.h) for
// forensics (`bkctl readentrylog`): every record from the first, checked
// as the bookie checks it (length, ids, CRC32C), with the bookie's own
// EntryLogScanner. The file is only read.
//
// A record the index no longer points at (its ledger deleted, or copied
// away by compaction and not yet collected) still shows here: a log holds
// what was written, the index says what is live.

#ifndef BK_BOOKIE_INSPECT_ENTRY_LOG_DUMP_H_
#define BK_BOOKIE_INSPECT_ENTRY_LOG_DUMP_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/env.h"

namespace bk::bookie::inspect {

struct EntryLogRecord {
  uint64_t offset = 0;  // of the record header: the index's location
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::string_view data;  // the packaged entry; valid during the visit
};

struct EntryLogDump {
  uint64_t log_id = 0;
  uint64_t file_size = 0;
  uint64_t records = 0;
  uint64_t valid_end = 0;  // where the last good record ends
  bool torn_tail = false;  // a record cut short at the end (a crash)
  // Non-empty when a record in the middle failed its checks (DataLoss):
  // the dump stops there, and this says where and why.
  std::string error;
};

using EntryLogVisitFn = std::function<void(const EntryLogRecord&)>;

// The path of log `log_id` in ledger directory `dir`.
std::string EntryLogPath(const std::string& dir, uint64_t log_id);

// Reads the entry log at `path`. NotFound when it does not exist; DataLoss
// when its file header is bad (nothing in it can be trusted); a record that
// fails its checks ends the dump with `error` set.
absl::StatusOr<EntryLogDump> DumpEntryLog(Env* env, const std::string& path,
                                          const EntryLogVisitFn& visit);

}  // namespace bk::bookie::inspect

#endif  // BK_BOOKIE_INSPECT_ENTRY_LOG_DUMP_H_
