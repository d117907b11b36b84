#include "autorecovery/auditor.h"

#include <set>

#include "autorecovery/recovery_delay.h"
#include "common/logging.h"

namespace bk::autorecovery {

absl::StatusOr<AuditReport> Auditor::Audit(absl::Time now) {
  auto log = bk::log::Get("autorecovery");
  // Act on no absence the store's server has not caught up with.
  if (absl::Status s = store_->Sync(); !s.ok()) return s;
  AuditReport report;
  auto enabled = marks_->ReplicationEnabled();
  if (!enabled.ok()) return enabled.status();
  if (!*enabled) {
    log->info("auditor: replication is paused by an operator; not auditing");
    report.replication_disabled = true;
    return report;
  }
  auto set = ReadLostBookieRecoveryDelay(store_);
  if (set.ok()) {
    const absl::Duration delay = set->value_or(configured_delay_);
    if (delay != delay_) {
      log->info("auditor: lostBookieRecoveryDelay is now {} ({})",
                absl::FormatDuration(delay),
                set->has_value() ? "set cluster-wide" : "configured");
    }
    delay_ = delay;
  } else if (absl::IsDataLoss(set.status())) {
    // An operator's typo must not stop the audits: keep the last delay.
    log->warn("auditor: {}; keeping lostBookieRecoveryDelay {}",
              set.status().ToString(), absl::FormatDuration(delay_));
  } else {
    return set.status();
  }
  report.delay = delay_;
  auto bookies = store_->ListBookies();
  if (!bookies.ok()) return bookies.status();
  std::set<std::string> alive;
  for (const auto& b : bookies->writable) alive.insert(b.bookie_id());
  for (const auto& b : bookies->readonly) alive.insert(b.bookie_id());

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

  // Forget bookies that came back or that no ledger names any more (those
  // whose ledgers were marked are healed: fully replicated elsewhere).
  for (auto m = missing_.begin(); m != missing_.end();) {
    if (on_missing.count(m->first) != 0) {
      ++m;
      continue;
    }
    if (m->second.marked && alive.count(m->first) == 0) {
      report.healed.emplace_back(m->first, now - m->second.since);
      log->info(
          "auditor: no ledger names lost bookie {} any more ({} after it "
          "went missing)",
          m->first, absl::FormatDuration(now - m->second.since));
    }
    m = missing_.erase(m);
  }
  for (const auto& [bookie, ledgers] : on_missing) {
    auto [it, fresh] = missing_.emplace(bookie, Missing{now, false});
    if (fresh) {
      log->info("auditor: bookie {} is missing, named by {} ledgers", bookie,
                ledgers.size());
    }
    // Once marked, a bookie stays lost even if the delay grew since.
    if (!it->second.marked && now - it->second.since < delay_) {
      report.waiting.push_back(bookie);
      continue;
    }
    it->second.marked = true;
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
  for (const auto& [bookie, m] : missing_) {
    if (!m.marked && m.since + delay_ < next) next = m.since + delay_;
  }
  return next;
}

}  // namespace bk::autorecovery
