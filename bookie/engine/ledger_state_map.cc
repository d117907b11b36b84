#include "bookie/engine/ledger_state_map.h"

#include "bookie/engine/lac_codec.h"
#include "bookie/storage/ledger_storage.h"

namespace bk::bookie {

static_assert(64 == (1 << 6), "ShardOf takes the top 6 bits of the hash");

std::shared_ptr<LedgerRules> LedgerStateMap::Find(uint64_t ledger_id) {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.map.find(ledger_id);
  return it == s.map.end() ? nullptr : it->second;
}

absl::StatusOr<std::shared_ptr<LedgerRules>> LedgerStateMap::Get(
    uint64_t ledger_id) {
  if (auto r = Find(ledger_id)) return r;
  // Load outside the shard lock: it reads the storage.
  auto rules = std::make_shared<LedgerRules>();
  {
    absl::MutexLock l(&rules->mu);
    absl::Status s = Load(ledger_id, rules.get());
    if (!s.ok()) return s;
  }
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  // Another thread may have loaded it meanwhile: keep the first.
  auto [it, inserted] = s.map.emplace(ledger_id, rules);
  return it->second;
}

std::vector<std::shared_ptr<LedgerRules>> LedgerStateMap::All() {
  std::vector<std::shared_ptr<LedgerRules>> out;
  for (Shard& s : shards_) {
    absl::MutexLock l(&s.mu);
    for (const auto& [id, rules] : s.map) out.push_back(rules);
  }
  return out;
}

std::shared_ptr<LedgerRules> LedgerStateMap::Take(uint64_t ledger_id) {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.map.find(ledger_id);
  if (it == s.map.end()) return nullptr;
  std::shared_ptr<LedgerRules> rules = std::move(it->second);
  s.map.erase(it);
  return rules;
}

size_t LedgerStateMap::size() {
  size_t n = 0;
  for (Shard& s : shards_) {
    absl::MutexLock l(&s.mu);
    n += s.map.size();
  }
  return n;
}

absl::Status LedgerStateMap::Load(uint64_t ledger_id, LedgerRules* rules)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {  // caller holds rules->mu
  if (!storage_->LedgerExists(ledger_id)) return absl::OkStatus();  // new
  auto key = storage_->GetMasterKey(ledger_id);
  if (key.ok()) {
    rules->master_key = *key;
  } else if (!absl::IsNotFound(key.status())) {
    return key.status();
  }
  auto fenced = storage_->IsFenced(ledger_id);
  if (fenced.ok()) {
    rules->fenced = *fenced;
  } else if (!absl::IsNotFound(fenced.status())) {
    return fenced.status();
  }
  auto lac = storage_->GetLastAddConfirmed(ledger_id);
  if (lac.ok()) {
    rules->lac = *lac;
  } else if (!absl::IsNotFound(lac.status())) {
    return lac.status();
  }
  auto explicit_lac = storage_->GetExplicitLac(ledger_id);
  if (explicit_lac.ok()) {
    auto v = DecodeLac(*explicit_lac);
    if (!v.ok()) return v.status();
    rules->explicit_lac = *v;
    rules->lac = std::max(rules->lac, *v);
  } else if (!absl::IsNotFound(explicit_lac.status())) {
    return explicit_lac.status();
  }
  return absl::OkStatus();
}

}  // namespace bk::bookie
