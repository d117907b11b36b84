#include "bookie/storage/index_rebuild.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/storage/index_scan.h"
#include "bookie/storage/ledger_index.h"
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

}  // namespace

absl::StatusOr<IndexRebuildReport> RebuildLocationIndex(
    Env* env, const std::string& dir, const IndexRebuildOptions& options) {
  if (options.max_run_entries < 1 ||
      options.max_run_entries > locrun::kMaxRunEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entries per location record must be 1 to ", locrun::kMaxRunEntries,
        ", not ", options.max_run_entries));
  }
  auto index = indexscan::OpenIndex(env, dir);
  if (!index.ok()) return index.status();
  auto live = indexscan::LiveLedgers(**index);
  if (!live.ok()) return live.status();
  auto logs = indexscan::CommittedLogs(**index);
  if (!logs.ok()) return logs.status();

  IndexRebuildReport report;
  report.live_ledgers = live->size();
  if (absl::Status s = (*index)->DeleteAllLocations(); !s.ok()) return s;
  const uint64_t records_before = (*index)->location_records();
  for (const auto& log : *logs) {
    const uint64_t log_id = log.first;
    std::map<uint64_t, std::vector<LocatedEntry>> by_ledger;
    const std::string problem = indexscan::ScanCommittedLog(
        env, dir, log_id, log.second, [&](const ScannedRecord& rec) {
          ++report.records_read;
          if (!live->contains(rec.ledger_id) || rec.entry_id < 0) {
            ++report.records_skipped;
            return;
          }
          by_ledger[rec.ledger_id].push_back(
              LocatedEntry{static_cast<uint64_t>(rec.entry_id),
                           EntryLocation{log_id, rec.offset}});
          ++report.entries_indexed;
        });
    ++report.logs_read;
    if (!problem.empty()) {
      report.problems.push_back(
          absl::StrCat(problem, "; the entries after it are not indexed"));
    }
    if (by_ledger.empty()) continue;
    std::unique_ptr<IndexBatch> batch = (*index)->NewBatch();
    for (auto& [ledger, entries] : by_ledger) {
      SortKeepLast(&entries);
      // Earlier logs' records of the ledger may cover these ids: replaced.
      absl::Status s =
          (*index)->PutLocations(batch.get(), ledger, entries,
                                 /*may_overlap=*/true, options.max_run_entries);
      if (!s.ok()) return s;
    }
    if (absl::Status s = (*index)->Commit(batch.get(), /*sync=*/true);
        !s.ok()) {
      return s;
    }
  }
  report.location_records = (*index)->location_records() - records_before;
  return report;
}

}  // namespace bk::bookie
