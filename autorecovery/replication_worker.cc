#include "autorecovery/replication_worker.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "client/ledger_repair.h"
#include "common/logging.h"

namespace bk::autorecovery {
namespace {

std::set<std::string> Named(const proto::LedgerMetadata& md) {
  std::set<std::string> out;
  for (const auto& seg : md.segments()) {
    for (const auto& b : seg.bookies()) out.insert(b);
  }
  return out;
}

bool InLastSegment(const proto::LedgerMetadata& md, const std::string& b) {
  const auto& last = md.segments(md.segments_size() - 1);
  return std::find(last.bookies().begin(), last.bookies().end(), b) !=
         last.bookies().end();
}

}  // namespace

ReplicationWorker::ReplicationWorker(client::Client* client,
                                     metadata::MetadataStore* store,
                                     UnderreplicationManager* marks,
                                     WorkerOptions options)
    : client_(client),
      store_(store),
      marks_(marks),
      options_(std::move(options)) {}

absl::StatusOr<WorkResult> ReplicationWorker::RunOnce(absl::Time now) {
  if (options_.honour_disable) {
    auto enabled = marks_->ReplicationEnabled();
    if (!enabled.ok()) return enabled.status();
    if (!*enabled) return WorkResult{.paused = true};  // by an operator
  }
  auto marked = marks_->List();
  if (!marked.ok()) return marked.status();
  for (LedgerId id : *marked) {
    if (!options_.only.empty() && !options_.only.contains(id)) continue;
    auto nb = not_before_.find(id);
    if (nb != not_before_.end() && nb->second > now) continue;
    auto locked = marks_->TryLock(id, options_.owner);
    if (!locked.ok()) return locked.status();
    if (!*locked) continue;  // another worker's
    WorkResult r = Repair(id, now);
    if (absl::Status s = marks_->Unlock(id); !s.ok()) {
      bk::log::Get("autorecovery")
          ->warn("ledger={} unlock failed: {}", id, s.ToString());
    }
    if (r.outcome == WorkResult::kRepaired) {
      not_before_.erase(id);
    } else {
      not_before_[id] = now + options_.backoff;
    }
    return r;
  }
  // Forget back-offs of ledgers no longer marked.
  for (auto it = not_before_.begin(); it != not_before_.end();) {
    it = std::binary_search(marked->begin(), marked->end(), it->first)
             ? std::next(it)
             : not_before_.erase(it);
  }
  return WorkResult{};
}

absl::StatusOr<std::string> PasswordFor(
    const proto::LedgerMetadata& md,
    const std::vector<std::string>& passwords) {
  if (md.password_hash() == client::PasswordHash("")) return std::string();
  for (const auto& p : passwords) {
    if (md.password_hash() == client::PasswordHash(p)) return p;
  }
  return absl::FailedPreconditionError(
      "none of the configured ledger passwords matches the ledger's");
}

WorkResult ReplicationWorker::Repair(LedgerId id, absl::Time now) {
  auto log = bk::log::Get("autorecovery");
  WorkResult r;
  r.ledger = id;
  r.outcome = WorkResult::kFailed;
  auto mark = marks_->Get(id);
  if (absl::IsNotFound(mark.status())) {
    r.outcome = WorkResult::kRepaired;  // someone finished it
    return r;
  }
  if (!mark.ok()) {
    r.error = mark.status();
    return r;
  }
  auto md = store_->ReadLedger(id);
  if (absl::IsNotFound(md.status())) {
    // Deleted: nothing to repair (after Sync, so the absence is real).
    if (absl::Status s = store_->Sync(); !s.ok()) {
      r.error = s;
      return r;
    }
    md = store_->ReadLedger(id);
    if (absl::IsNotFound(md.status())) {
      r.error = marks_->Unmark(*mark, mark->missing);
      if (r.error.ok()) r.outcome = WorkResult::kRepaired;
      return r;
    }
  }
  if (!md.ok()) {
    r.error = md.status();
    return r;
  }
  auto password = PasswordFor(md->value, options_.passwords);
  if (!password.ok()) {
    r.error = password.status();
    log->warn("ledger={} cannot be re-replicated: {}", id,
              password.status().ToString());
    return r;
  }

  // An open ledger's last segment: after the grace period, recover it.
  bool defer_last = false;
  if (md->value.state() != proto::CLOSED) {
    bool in_last = false;
    for (const auto& b : mark->missing) in_last |= InLastSegment(md->value, b);
    if (in_last && now - mark->marked_at < options_.open_ledger_grace_period) {
      defer_last = true;
    } else if (in_last) {
      log->info("ledger={} open past the grace period: recovering it", id);
      auto reader = client_->OpenLedger(id, *password, /*recover=*/true);
      if (!reader.ok()) {
        r.error = reader.status();
        return r;
      }
    }
  }

  client::LedgerRepair repair(client_);
  client::RepairOptions ro;
  ro.batch_size = options_.batch_size;
  ro.throttle = options_.throttle;
  for (const auto& bookie : mark->missing) {
    auto moved = repair.ReplaceBookie(id, *password, bookie, ro);
    if (!moved.ok()) {
      r.error = moved.status();
      log->warn("ledger={} moving off {} failed: {}", id, bookie,
                moved.status().ToString());
      return r;
    }
    for (const auto& m : moved->moved) {
      ++r.fragments;
      r.entries += m.entries;
      r.bytes += m.bytes;
    }
  }

  auto after = store_->ReadLedger(id);
  if (!after.ok()) {
    r.error = after.status();
    return r;
  }
  const std::set<std::string> named = Named(after->value);
  std::vector<std::string> repaired;
  for (const auto& b : mark->missing) {
    if (named.count(b) == 0) repaired.push_back(b);
  }
  if (absl::Status s = marks_->Unmark(*mark, repaired); !s.ok()) {
    // kAborted: marked again meanwhile; the next round looks again.
    r.error = s;
    return r;
  }
  r.outcome = repaired.size() == mark->missing.size() ? WorkResult::kRepaired
                                                      : WorkResult::kDeferred;
  if (r.outcome == WorkResult::kDeferred && !defer_last) {
    r.error = absl::UnavailableError("some bookies are still named");
  }
  log->info("ledger={} {}: {} fragments, {} entries, {} bytes copied", id,
            r.outcome == WorkResult::kRepaired ? "fully replicated"
                                               : "partly repaired",
            r.fragments, r.entries, r.bytes);
  return r;
}

}  // namespace bk::autorecovery
