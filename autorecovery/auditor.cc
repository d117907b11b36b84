#include "autorecovery/auditor.h"

#include <set>

#include "common/logging.h"

namespace bk::autorecovery {

absl::StatusOr<AuditReport> Auditor::Audit(absl::Time now) {
  auto log = bk::log::Get("autorecovery");
  // Act on no absence the store's server has not caught up with.
  if (absl::Status s = store_->Sync(); !s.ok()) return s;
  auto bookies = store_->ListBookies();
  if (!bookies.ok()) return bookies.status();
  std::set<std::string> alive;
  for (const auto& b : bookies->writable) alive.insert(b.bookie_id());
  for (const auto& b : bookies->readonly) alive.insert(b.bookie_id());

  AuditReport report;
  std::map<std::string, std::vector<LedgerId>> on_missing;
  auto it = store_->ListLedgers();
  LedgerId id;
  while (it->Next(&id)) {
    auto md = store_->ReadLedger(id);
    if (absl::IsNotFound(md.status())) continue;  // deleted meanwhile
    if (!md.ok()) return md.status();
    ++report.ledgers_checked;
    std::set<std::string> named;
    for (const auto& seg : md->value.segments()) {
      for (const auto& b : seg.bookies()) named.insert(b);
    }
    for (const auto& b : named) {
      if (alive.count(b) == 0) on_missing[b].push_back(id);
    }
  }
  if (!it->status().ok()) return it->status();

  // Forget bookies that came back or that no ledger names any more.
  for (auto m = missing_since_.begin(); m != missing_since_.end();) {
    m = on_missing.count(m->first) == 0 ? missing_since_.erase(m)
                                        : std::next(m);
  }
  for (const auto& [bookie, ledgers] : on_missing) {
    auto [since, fresh] = missing_since_.emplace(bookie, now);
    if (fresh) {
      log->info("auditor: bookie {} is missing, named by {} ledgers", bookie,
                ledgers.size());
    }
    if (now - since->second < delay_) {
      report.waiting.push_back(bookie);
      continue;
    }
    report.lost.push_back(bookie);
    for (LedgerId l : ledgers) {
      if (absl::Status s = marks_->Mark(l, {bookie}, now); !s.ok()) return s;
      ++report.ledgers_marked;
    }
  }
  if (!report.lost.empty()) {
    log->info("auditor: {} ledgers marked under-replicated",
              report.ledgers_marked);
  }
  return report;
}

absl::Time Auditor::NextDeadline() const {
  absl::Time next = absl::InfiniteFuture();
  for (const auto& [bookie, since] : missing_since_) {
    if (since + delay_ < next) next = since + delay_;
  }
  return next;
}

}  // namespace bk::autorecovery
