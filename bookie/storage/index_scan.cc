#include "bookie/storage/index_scan.h"

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_metadata.h"
#include "bookie/storage/ledger_state.h"

namespace bk::bookie::indexscan {

absl::StatusOr<std::unique_ptr<LedgerIndex>> OpenIndex(Env* env,
                                                       const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/index");
  if (!env->FileExists(path)) {
    return absl::NotFoundError(
        absl::StrCat(dir, " has no index (", path,
                     "): not a ledger directory, or never opened by a bookie"));
  }
  return LedgerIndex::Open(path);
}

absl::StatusOr<absl::flat_hash_set<uint64_t>> LiveLedgers(
    const LedgerIndex& index) {
  absl::flat_hash_set<uint64_t> live;
  absl::Status s = index.ForEachLedgerState(
      [&](uint64_t id, absl::string_view bytes) -> absl::Status {
        auto state = ledgerstate::Decode(bytes);
        if (!state.ok()) {
          return absl::DataLossError(absl::StrCat(
              "ledger ", id, "'s state record: ", state.status().message(),
              "; cannot tell whether the ledger is live"));
        }
        if (!state->deleted) live.insert(id);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return live;
}

absl::StatusOr<std::map<uint64_t, uint64_t>> CommittedLogs(
    const LedgerIndex& index) {
  std::map<uint64_t, uint64_t> logs;
  absl::Status s = index.ForEachLogMetadata(
      [&](uint64_t id, absl::string_view bytes) -> absl::Status {
        auto meta = logmeta::Decode(bytes);
        if (!meta.ok()) {
          return absl::DataLossError(absl::StrCat(
              "entry log ", id, "'s metadata: ", meta.status().message()));
        }
        logs[id] = meta->end_offset;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return logs;
}

std::string ScanCommittedLog(
    Env* env, const std::string& dir, uint64_t log_id, uint64_t end_offset,
    const std::function<void(const ScannedRecord&)>& fn) {
  const std::string path =
      absl::StrCat(dir, "/", entrylog::LogFileName(log_id));
  auto reader = EntryLogReader::Open(env, path);
  if (!reader.ok()) {
    return absl::StrCat("entry log ", path, " (committed up to offset ",
                        end_offset,
                        ") cannot be opened: ", reader.status().ToString());
  }
  EntryLogScanner scanner(**reader, entrylog::kFileHeaderSize, end_offset);
  ScannedRecord rec;
  while (true) {
    absl::StatusOr<bool> more = scanner.Next(&rec);
    if (!more.ok()) {
      return absl::StrCat("entry log ", path, ": ", more.status().ToString(),
                          "; its records after that point were not read");
    }
    if (!*more) break;
    fn(rec);
  }
  if (scanner.torn_tail()) {
    return absl::StrCat("entry log ", path,
                        " ends before its committed extent (offset ",
                        end_offset, ")");
  }
  return "";
}

}  // namespace bk::bookie::indexscan
