#include "bookie/storage/index_check.h"

#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/index_scan.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/location_run.h"

namespace bk::bookie {
namespace {

// Readers of the logs met so far (or why a log cannot be opened); cleared
// past a bound, so a directory of thousands of logs holds few files open.
class Readers {
 public:
  Readers(Env* env, std::string dir) : env_(env), dir_(std::move(dir)) {}

  // The reader of log `id`, null with *error set if it cannot be opened.
  const EntryLogReader* Get(uint64_t id, absl::Status* error) {
    if (auto it = failed_.find(id); it != failed_.end()) {
      *error = it->second;
      return nullptr;
    }
    if (auto it = open_.find(id); it != open_.end()) return it->second.get();
    if (open_.size() >= kMaxOpen) open_.clear();
    auto r = EntryLogReader::Open(
        env_, absl::StrCat(dir_, "/", entrylog::LogFileName(id)));
    if (!r.ok()) {
      *error = r.status();
      failed_.emplace(id, r.status());
      return nullptr;
    }
    return open_.emplace(id, std::move(*r)).first->second.get();
  }

 private:
  static constexpr size_t kMaxOpen = 64;
  Env* const env_;
  const std::string dir_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<EntryLogReader>> open_;
  absl::flat_hash_map<uint64_t, absl::Status> failed_;
};

}  // namespace

absl::StatusOr<IndexCheckReport> CheckLocationIndex(Env* env,
                                                    const std::string& dir) {
  auto index = indexscan::OpenIndex(env, dir);
  if (!index.ok()) return index.status();

  auto live_or = indexscan::LiveLedgers(**index);
  if (!live_or.ok()) return live_or.status();
  const absl::flat_hash_set<uint64_t>& live = *live_or;
  auto logs = indexscan::CommittedLogs(**index);
  if (!logs.ok()) return logs.status();

  IndexCheckReport report;
  auto problem = [&report](std::string line) {
    if (report.problems.size() < IndexCheckReport::kMaxProblems) {
      report.problems.push_back(std::move(line));
    }
  };
  Readers readers(env, dir);
  uint64_t dead_ledger = 0;  // the last one reported
  bool reported_dead = false;
  absl::Status s = (*index)->ForEachLocationRun(
      [&](uint64_t ledger, uint64_t first,
          const absl::StatusOr<locrun::RunView>& run) -> absl::Status {
        ++report.location_records;
        if (!run.ok()) {
          ++report.records_bad;
          problem(absl::StrCat("ledger ", ledger, " record at entry ", first,
                               ": ", run.status().message()));
          return absl::OkStatus();
        }
        if (!live.contains(ledger)) {
          report.entries_of_dead_ledgers += run->count();
          if (!reported_dead || dead_ledger != ledger) {
            problem(absl::StrCat("ledger ", ledger,
                                 " has locations but is deleted or unknown "
                                 "to the index"));
            reported_dead = true;
            dead_ledger = ledger;
          }
        }
        for (uint64_t e = run->first(); e <= run->last(); ++e) {
          ++report.entries_checked;
          const EntryLocation loc = run->At(e);
          absl::Status read;
          if (const EntryLogReader* r = readers.Get(loc.log_id, &read)) {
            read =
                r->Read(loc.offset, ledger, static_cast<int64_t>(e)).status();
          }
          if (!read.ok()) {
            ++report.entries_bad;
            problem(absl::StrCat("ledger ", ledger, " entry ", e, " at log ",
                                 entrylog::LogFileName(loc.log_id), " offset ",
                                 loc.offset, ": ", read.message()));
          }
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;

  // The other way: every committed record of a live ledger is indexed.
  std::unique_ptr<LocationLookup> lookup = (*index)->NewLookup();
  for (const auto& [log_id, end_offset] : *logs) {
    uint64_t unindexed = 0;
    const std::string incomplete = indexscan::ScanCommittedLog(
        env, dir, log_id, end_offset, [&](const ScannedRecord& rec) {
          if (!live.contains(rec.ledger_id) || rec.entry_id < 0) return;
          if (absl::IsNotFound(
                  lookup->Get(rec.ledger_id, rec.entry_id).status())) {
            ++unindexed;
          }
        });
    ++report.logs_read;
    if (!incomplete.empty()) {
      ++report.logs_incomplete;
      problem(incomplete);
    }
    if (unindexed > 0) {
      report.entries_unindexed += unindexed;
      problem(absl::StrCat("entry log ", entrylog::LogFileName(log_id),
                           " holds ", unindexed,
                           " entries of live ledgers that have no location "
                           "(rebuild-db-ledger-locations-index puts them "
                           "back)"));
    }
  }
  return report;
}

}  // namespace bk::bookie
