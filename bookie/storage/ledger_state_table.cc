#include "bookie/storage/ledger_state_table.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace bk::bookie {

LedgerStateTable::LedgerStateTable(LedgerIndex* index, int shards)
    : index_(index),
      shards_(new Shard[std::max(shards, 1)]),
      shard_count_(std::max(shards, 1)) {}

LedgerStateTable::Shard& LedgerStateTable::ShardOf(uint64_t ledger_id) const {
  return shards_[absl::HashOf(ledger_id) % static_cast<size_t>(shard_count_)];
}

absl::Status LedgerStateTable::Load() {
  return index_->ForEachLedgerState(
      [this](uint64_t id, absl::string_view bytes) -> absl::Status {
        auto state = ledgerstate::Decode(bytes);
        if (!state.ok()) {
          return absl::DataLossError(
              absl::StrCat("ledger ", id, ": ", state.status().message()));
        }
        Shard& s = ShardOf(id);
        absl::MutexLock l(&s.mu);
        s.states[id] = std::move(*state);
        return absl::OkStatus();
      });
}

std::optional<LedgerState> LedgerStateTable::Get(uint64_t ledger_id) const {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  if (it == s.states.end()) return std::nullopt;
  return it->second;
}

bool LedgerStateTable::Exists(uint64_t ledger_id) const {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  return it != s.states.end() && !it->second.deleted;
}

bool LedgerStateTable::IsDeleted(uint64_t ledger_id) const {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  return it != s.states.end() && it->second.deleted;
}

absl::Status LedgerStateTable::Ensure(uint64_t ledger_id) {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  if (it != s.states.end()) {
    if (it->second.deleted) {
      return absl::NotFoundError(
          absl::StrCat("ledger ", ledger_id, " was deleted"));
    }
    return absl::OkStatus();
  }
  LedgerState fresh;
  absl::Status st = index_->PutLedgerState(
      ledger_id, ledgerstate::Encode(fresh), /*sync=*/false);
  if (!st.ok()) return st;
  s.states.emplace(ledger_id, std::move(fresh));
  return absl::OkStatus();
}

absl::Status LedgerStateTable::Update(
    uint64_t ledger_id, bool sync,
    const std::function<absl::StatusOr<bool>(LedgerState*)>& mutate) {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  LedgerState next = it == s.states.end() ? LedgerState{} : it->second;
  auto changed = mutate(&next);
  if (!changed.ok()) return changed.status();
  if (!*changed && it != s.states.end()) return absl::OkStatus();
  absl::Status st =
      index_->PutLedgerState(ledger_id, ledgerstate::Encode(next), sync);
  if (!st.ok()) return st;
  s.states[ledger_id] = std::move(next);
  return absl::OkStatus();
}

std::vector<uint64_t> LedgerStateTable::LiveLedgers() const {
  std::vector<uint64_t> out;
  for (int i = 0; i < shard_count_; ++i) {
    absl::MutexLock l(&shards_[i].mu);
    for (const auto& [id, st] : shards_[i].states) {
      if (!st.deleted) out.push_back(id);
    }
  }
  return out;
}

std::vector<uint64_t> LedgerStateTable::DeletedLedgers() const {
  std::vector<uint64_t> out;
  for (int i = 0; i < shard_count_; ++i) {
    absl::MutexLock l(&shards_[i].mu);
    for (const auto& [id, st] : shards_[i].states) {
      if (st.deleted) out.push_back(id);
    }
  }
  return out;
}

absl::StatusOr<bool> LedgerStateTable::Purge(uint64_t ledger_id) {
  Shard& s = ShardOf(ledger_id);
  // Held across the index write: an Ensure of the same id (which takes
  // this mutex) writes its fresh row after our delete, never before.
  absl::MutexLock l(&s.mu);
  auto it = s.states.find(ledger_id);
  if (it == s.states.end() || !it->second.deleted) return false;
  if (absl::Status st = index_->DeleteLedgerState(ledger_id, /*sync=*/false);
      !st.ok()) {
    return st;
  }
  s.states.erase(it);
  return true;
}

}  // namespace bk::bookie
