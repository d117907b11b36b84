#include "metadata/mem/mem_cluster.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace bk::metadata {
namespace {

absl::Status Conflict(absl::string_view what, Version expected,
                      Version stored) {
  return absl::AbortedError(absl::StrCat("version conflict on ", what,
                                         ": expected ", expected, ", stored ",
                                         stored));
}

}  // namespace

std::shared_ptr<MemCluster> MemCluster::Get(const std::string& name) {
  if (name.empty()) return std::make_shared<MemCluster>();
  static absl::Mutex registry_mu(absl::kConstInit);
  // Named clusters live until the process exits, as an ensemble outlives
  // its clients: a store opened later sees what earlier ones wrote.
  static auto* registry =
      new absl::flat_hash_map<std::string, std::shared_ptr<MemCluster>>();
  absl::MutexLock lock(&registry_mu);
  std::shared_ptr<MemCluster>& slot = (*registry)[name];
  if (!slot) slot = std::make_shared<MemCluster>();
  return slot;
}

void MemCluster::AddObserver(MemObserver* o) {
  absl::MutexLock lock(&mu_);
  observers_.insert(o);
}

void MemCluster::RemoveObserver(MemObserver* o) {
  absl::MutexLock lock(&mu_);
  observers_.erase(o);
}

void MemCluster::LedgerChangedLocked(LedgerId id) {
  for (MemObserver* o : observers_) o->OnLedgerChanged(id);
}

void MemCluster::BookiesChangedLocked() {
  for (MemObserver* o : observers_) o->OnBookiesChanged();
}

MemCluster::SessionId MemCluster::NewSession() {
  absl::MutexLock lock(&mu_);
  return next_session_++;
}

void MemCluster::EndSession(SessionId session) {
  absl::MutexLock lock(&mu_);
  bool changed = false;
  for (auto it = bookies_.begin(); it != bookies_.end();) {
    if (it->second.session == session) {
      it = bookies_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  if (changed) BookiesChangedLocked();
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (it->second.owner == session) {
      NodeAddedOrRemovedLocked(it->first);
      it = nodes_.erase(it);
    } else {
      ++it;
    }
  }
}

LedgerId MemCluster::AllocateIds(int64_t n) {
  absl::MutexLock lock(&mu_);
  const LedgerId first = next_ledger_id_;
  next_ledger_id_ += n;
  return first;
}

absl::StatusOr<Version> MemCluster::CreateLedger(LedgerId id,
                                                 std::string bytes) {
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = ledgers_.try_emplace(id, Record{std::move(bytes), 0});
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat("ledger ", id, " exists"));
  }
  LedgerChangedLocked(id);
  return it->second.version;
}

absl::StatusOr<MemCluster::Record> MemCluster::ReadLedger(LedgerId id) {
  absl::MutexLock lock(&mu_);
  auto it = ledgers_.find(id);
  if (it == ledgers_.end()) {
    return absl::NotFoundError(absl::StrCat("ledger ", id, " not found"));
  }
  return it->second;
}

absl::StatusOr<Version> MemCluster::SetLedger(LedgerId id, std::string bytes,
                                              Version expected) {
  absl::MutexLock lock(&mu_);
  auto it = ledgers_.find(id);
  if (it == ledgers_.end()) {
    return absl::NotFoundError(absl::StrCat("ledger ", id, " not found"));
  }
  if (it->second.version != expected) {
    return Conflict(absl::StrCat("ledger ", id), expected, it->second.version);
  }
  it->second.bytes = std::move(bytes);
  ++it->second.version;
  LedgerChangedLocked(id);
  return it->second.version;
}

absl::Status MemCluster::DeleteLedger(LedgerId id, Version expected) {
  absl::MutexLock lock(&mu_);
  auto it = ledgers_.find(id);
  if (it == ledgers_.end()) {
    return absl::NotFoundError(absl::StrCat("ledger ", id, " not found"));
  }
  if (expected != kAnyVersion && it->second.version != expected) {
    return Conflict(absl::StrCat("ledger ", id), expected, it->second.version);
  }
  ledgers_.erase(it);
  LedgerChangedLocked(id);
  return absl::OkStatus();
}

std::vector<LedgerId> MemCluster::ListLedgers(LedgerId after, size_t max) {
  absl::MutexLock lock(&mu_);
  std::vector<LedgerId> out;
  for (auto it = ledgers_.upper_bound(after);
       it != ledgers_.end() && out.size() < max; ++it) {
    out.push_back(it->first);
  }
  return out;
}

void MemCluster::PutRawLedger(LedgerId id, std::string bytes) {
  absl::MutexLock lock(&mu_);
  Record& r = ledgers_[id];
  r.bytes = std::move(bytes);
  LedgerChangedLocked(id);
}

absl::Status MemCluster::Register(SessionId session,
                                  const std::string& bookie_id,
                                  std::string bytes, bool read_only) {
  absl::MutexLock lock(&mu_);
  auto it = bookies_.find(bookie_id);
  if (it != bookies_.end() && it->second.session != session) {
    return absl::AlreadyExistsError(absl::StrCat(
        "bookie ", bookie_id, " is registered by another session"));
  }
  bookies_[bookie_id] =
      Held{session, Registration{bookie_id, std::move(bytes), read_only}};
  BookiesChangedLocked();
  return absl::OkStatus();
}

absl::Status MemCluster::Unregister(SessionId session,
                                    const std::string& bookie_id) {
  absl::MutexLock lock(&mu_);
  auto it = bookies_.find(bookie_id);
  if (it == bookies_.end() || it->second.session != session) {
    return absl::NotFoundError(
        absl::StrCat("bookie ", bookie_id, " is not registered by this store"));
  }
  bookies_.erase(it);
  BookiesChangedLocked();
  return absl::OkStatus();
}

std::vector<MemCluster::Registration> MemCluster::Registrations() {
  absl::MutexLock lock(&mu_);
  std::vector<Registration> out;
  for (const auto& [id, held] : bookies_) out.push_back(held.reg);
  return out;
}

namespace {

// Read, write (compare-and-set) and delete of one keyed record map, as
// cookies and bookie groups share them. `what` names the record kind.
absl::StatusOr<MemCluster::Record> ReadKeyed(
    const std::map<std::string, MemCluster::Record>& records,
    const std::string& id, absl::string_view what) {
  auto it = records.find(id);
  if (it == records.end()) {
    return absl::NotFoundError(absl::StrCat("no ", what, " for bookie ", id));
  }
  return it->second;
}

absl::StatusOr<Version> WriteKeyed(
    std::map<std::string, MemCluster::Record>& records, const std::string& id,
    std::string bytes, Version expected, absl::string_view what) {
  auto it = records.find(id);
  if (expected == kNotExists) {
    if (it != records.end()) {
      return absl::AlreadyExistsError(
          absl::StrCat(what, " for bookie ", id, " exists"));
    }
    records.emplace(id, MemCluster::Record{std::move(bytes), 0});
    return 0;
  }
  if (it == records.end()) {
    return absl::NotFoundError(absl::StrCat("no ", what, " for bookie ", id));
  }
  if (it->second.version != expected) {
    return Conflict(absl::StrCat(what, " of ", id), expected,
                    it->second.version);
  }
  it->second.bytes = std::move(bytes);
  return ++it->second.version;
}

absl::Status DeleteKeyed(std::map<std::string, MemCluster::Record>& records,
                         const std::string& id, Version expected,
                         absl::string_view what) {
  auto it = records.find(id);
  if (it == records.end()) {
    return absl::NotFoundError(absl::StrCat("no ", what, " for bookie ", id));
  }
  if (expected != kAnyVersion && it->second.version != expected) {
    return Conflict(absl::StrCat(what, " of ", id), expected,
                    it->second.version);
  }
  records.erase(it);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MemCluster::Record> MemCluster::ReadCookie(
    const std::string& id) {
  absl::MutexLock lock(&mu_);
  return ReadKeyed(cookies_, id, "cookie");
}

absl::StatusOr<Version> MemCluster::WriteCookie(const std::string& id,
                                                std::string bytes,
                                                Version expected) {
  absl::MutexLock lock(&mu_);
  return WriteKeyed(cookies_, id, std::move(bytes), expected, "cookie");
}

absl::Status MemCluster::DeleteCookie(const std::string& id, Version expected) {
  absl::MutexLock lock(&mu_);
  return DeleteKeyed(cookies_, id, expected, "cookie");
}

absl::StatusOr<MemCluster::Record> MemCluster::ReadGroups(
    const std::string& id) {
  absl::MutexLock lock(&mu_);
  return ReadKeyed(groups_, id, "groups");
}

absl::StatusOr<Version> MemCluster::WriteGroups(const std::string& id,
                                                std::string bytes,
                                                Version expected) {
  absl::MutexLock lock(&mu_);
  return WriteKeyed(groups_, id, std::move(bytes), expected, "groups");
}

absl::Status MemCluster::DeleteGroups(const std::string& id, Version expected) {
  absl::MutexLock lock(&mu_);
  return DeleteKeyed(groups_, id, expected, "groups");
}

std::vector<std::string> MemCluster::CookieIds() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [id, record] : cookies_) out.push_back(id);
  return out;
}

std::vector<MemCluster::Record> MemCluster::ListGroups() {
  absl::MutexLock lock(&mu_);
  std::vector<Record> out;
  for (const auto& [id, record] : groups_) out.push_back(record);
  return out;
}

std::string MemCluster::InstanceId(const std::string& fresh) {
  absl::MutexLock lock(&mu_);
  if (instance_id_.empty()) instance_id_ = fresh;
  return instance_id_;
}

}  // namespace bk::metadata
