#include "bookie/storage/index_rebuild.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_metadata.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/ledger_state.h"
#include "bookie/storage/location_run.h"

namespace bk::bookie {
namespace {

// Sorts one ledger's entries of one log by id and keeps the last copy of
// each (the highest offset: written last).
void SortKeepLast(std::vector<LocatedEntry>* entries) {
  std::stable_sort(entries->begin(), entries->end(),
                   [](const LocatedEntry& a, const LocatedEntry& b) {
                     return a.entry < b.entry;
                   });
  size_t out = 0;
  for (size_t i = 0; i < entries->size(); ++i) {
    if (out > 0 && (*entries)[out - 1].entry == (*entries)[i].entry) {
      (*entries)[out - 1] = (*entries)[i];
    } else {
      (*entries)[out++] = (*entries)[i];
    }
  }
  entries->resize(out);
}

// Reads one log's committed records into per-ledger lists; a record that
// cannot be read ends the log and is described in `problem`.
void ReadLog(Env* env, const std::string& dir, uint64_t log_id,
             uint64_t end_offset, const absl::flat_hash_set<uint64_t>& live,
             IndexRebuildReport* report,
             std::map<uint64_t, std::vector<LocatedEntry>>* by_ledger,
             std::string* problem) {
  const std::string path =
      absl::StrCat(dir, "/", entrylog::LogFileName(log_id));
  auto reader = EntryLogReader::Open(env, path);
  if (!reader.ok()) {
    *problem = absl::StrCat("entry log ", path, " (committed up to offset ",
                            end_offset,
                            ") cannot be opened: ", reader.status().ToString(),
                            "; none of its entries is indexed");
    return;
  }
  EntryLogScanner scanner(**reader, entrylog::kFileHeaderSize, end_offset);
  ScannedRecord rec;
  while (true) {
    absl::StatusOr<bool> more = scanner.Next(&rec);
    if (!more.ok()) {
      *problem =
          absl::StrCat("entry log ", path, ": ", more.status().ToString(),
                       "; the entries after that point in it are not indexed");
      break;
    }
    if (!*more) {
      if (scanner.torn_tail()) {
        *problem = absl::StrCat(
            "entry log ", path, " ends before its committed extent (offset ",
            end_offset, "); the entries past its end are not indexed");
      }
      break;
    }
    ++report->records_read;
    if (!live.contains(rec.ledger_id) || rec.entry_id < 0) {
      ++report->records_skipped;
      continue;
    }
    (*by_ledger)[rec.ledger_id].push_back(
        LocatedEntry{static_cast<uint64_t>(rec.entry_id),
                     EntryLocation{log_id, rec.offset}});
    ++report->entries_indexed;
  }
  ++report->logs_read;
}

}  // namespace

absl::StatusOr<IndexRebuildReport> RebuildLocationIndex(
    Env* env, const std::string& dir, const IndexRebuildOptions& options) {
  if (options.max_run_entries < 1 ||
      options.max_run_entries > locrun::kMaxRunEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entries per location record must be 1 to ", locrun::kMaxRunEntries,
        ", not ", options.max_run_entries));
  }
  const std::string index_path = absl::StrCat(dir, "/index");
  if (!env->FileExists(index_path)) {
    return absl::NotFoundError(
        absl::StrCat(dir, " has no index (", index_path,
                     "): not a ledger directory, or never opened by a bookie"));
  }
  auto index = LedgerIndex::Open(index_path);
  if (!index.ok()) return index.status();

  IndexRebuildReport report;
  absl::flat_hash_set<uint64_t> live;
  absl::Status s = (*index)->ForEachLedgerState(
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
  report.live_ledgers = live.size();

  std::map<uint64_t, uint64_t> logs;  // id -> committed end offset
  s = (*index)->ForEachLogMetadata(
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

  if (s = (*index)->DeleteAllLocations(); !s.ok()) return s;
  const uint64_t records_before = (*index)->location_records();
  for (const auto& [log_id, end_offset] : logs) {
    std::map<uint64_t, std::vector<LocatedEntry>> by_ledger;
    std::string problem;
    ReadLog(env, dir, log_id, end_offset, live, &report, &by_ledger, &problem);
    if (!problem.empty()) report.problems.push_back(std::move(problem));
    if (by_ledger.empty()) continue;
    std::unique_ptr<IndexBatch> batch = (*index)->NewBatch();
    for (auto& [ledger, entries] : by_ledger) {
      SortKeepLast(&entries);
      // Earlier logs' records of the ledger may cover these ids: replaced.
      s = (*index)->PutLocations(batch.get(), ledger, entries,
                                 /*may_overlap=*/true, options.max_run_entries);
      if (!s.ok()) return s;
    }
    if (s = (*index)->Commit(batch.get(), /*sync=*/true); !s.ok()) return s;
  }
  report.location_records = (*index)->location_records() - records_before;
  return report;
}

}  // namespace bk::bookie
