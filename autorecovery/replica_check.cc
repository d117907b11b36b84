#include "autorecovery/replica_check.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "client/ledger_checker.h"
#include "common/logging.h"

namespace bk::autorecovery {
namespace {

bool InOpenLastSegment(const proto::LedgerMetadata& md,
                       const std::string& bookie) {
  if (md.state() == proto::CLOSED || md.segments_size() == 0) return false;
  const auto& last = md.segments(md.segments_size() - 1).bookies();
  return std::find(last.begin(), last.end(), bookie) != last.end();
}

}  // namespace

absl::StatusOr<ReplicaCheckReport> ReplicaCheck::Run(absl::Time now) {
  auto log = bk::log::Get("autorecovery");
  ReplicaCheckReport report;
  auto enabled = marks_->ReplicationEnabled();
  if (!enabled.ok()) return enabled.status();
  if (!*enabled) {
    log->info("replica check: replication is paused by an operator; skipped");
    report.replication_disabled = true;
    return report;
  }
  client::LedgerChecker checker(client_);
  std::set<std::string> unreachable;
  auto it = store_->ListLedgers();
  LedgerId id;
  while (it->Next(&id)) {
    auto check = checker.Check(id, timeout_);
    if (absl::IsNotFound(check.status())) continue;  // deleted meanwhile
    if (!check.ok()) return check.status();
    ++report.ledgers_checked;
    report.fragments_checked += check->fragments_checked;
    unreachable.insert(check->unreachable.begin(), check->unreachable.end());
    if (check->gaps.empty()) continue;
    auto md = store_->ReadLedger(id);
    if (absl::IsNotFound(md.status())) continue;
    if (!md.ok()) return md.status();
    std::set<std::string> missing;
    for (const auto& gap : check->gaps) {
      report.entries_missing += gap.missing_entries;
      if (InOpenLastSegment(md->value, gap.bookie)) {
        report.deferred.push_back(
            absl::StrCat("ledger ", id, " bookie ", gap.bookie));
        continue;
      }
      log->warn(
          "replica check: ledger={} segment {} (entries {}..{}): bookie {} "
          "lacks {} entries (first {})",
          id, gap.segment, gap.first_entry, gap.last_entry, gap.bookie,
          gap.missing_entries, gap.first_missing);
      missing.insert(gap.bookie);
    }
    if (missing.empty()) continue;
    const std::vector<std::string> bookies(missing.begin(), missing.end());
    if (absl::Status s = marks_->Mark(id, bookies, now); !s.ok()) return s;
    ++report.ledgers_marked;
  }
  if (!it->status().ok()) return it->status();
  report.unreachable.assign(unreachable.begin(), unreachable.end());
  log->info(
      "replica check: {} ledgers, {} fragments checked; {} ledgers marked "
      "({} entries missing), {} gaps left for open ledgers, {} bookies did "
      "not answer",
      report.ledgers_checked, report.fragments_checked, report.ledgers_marked,
      report.entries_missing, report.deferred.size(),
      report.unreachable.size());
  return report;
}

}  // namespace bk::autorecovery
