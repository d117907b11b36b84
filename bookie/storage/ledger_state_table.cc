#include "bookie/storage/ledger_state_table.h"

#include <algorithm>
#include <utility>

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
        auto slot = std::make_shared<LedgerSlot>(id);
        {
          absl::MutexLock l(&slot->mu);
          slot->deleted.store(state->deleted);
          slot->state = std::move(*state);
        }
        Shard& s = ShardOf(id);
        absl::MutexLock l(&s.mu);
        s.slots[id] = std::move(slot);
        return absl::OkStatus();
      });
}

std::shared_ptr<LedgerSlot> LedgerStateTable::Find(uint64_t ledger_id) const {
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.slots.find(ledger_id);
  return it == s.slots.end() ? nullptr : it->second;
}

absl::StatusOr<std::shared_ptr<LedgerSlot>> LedgerStateTable::FindOrCreate(
    uint64_t ledger_id, bool* created) {
  if (created != nullptr) *created = false;
  Shard& s = ShardOf(ledger_id);
  absl::MutexLock l(&s.mu);
  auto it = s.slots.find(ledger_id);
  if (it != s.slots.end()) {
    if (it->second->deleted.load()) {
      return absl::NotFoundError(
          absl::StrCat("ledger ", ledger_id, " was deleted"));
    }
    return it->second;
  }
  // A fresh slot: no one else can reach it yet, so its lock is not needed
  // to read its (default) state.
  auto slot = std::make_shared<LedgerSlot>(ledger_id);
  s.changed[ledger_id] = ledgerstate::Encode(LedgerState{});
  s.slots.emplace(ledger_id, slot);
  if (created != nullptr) *created = true;
  return slot;
}

bool LedgerStateTable::Exists(uint64_t ledger_id) const {
  std::shared_ptr<LedgerSlot> slot = Find(ledger_id);
  return slot != nullptr && !slot->deleted.load();
}

bool LedgerStateTable::IsDeleted(uint64_t ledger_id) const {
  std::shared_ptr<LedgerSlot> slot = Find(ledger_id);
  return slot != nullptr && slot->deleted.load();
}

void LedgerStateTable::Changed(const LedgerSlot& slot) {
  std::string encoded = ledgerstate::Encode(slot.state);
  Shard& s = ShardOf(slot.ledger_id);
  absl::MutexLock l(&s.mu);
  s.changed[slot.ledger_id] = std::move(encoded);
}

size_t LedgerStateTable::TakeChanged(IndexBatch* batch) {
  size_t n = 0;
  absl::flat_hash_map<uint64_t, std::string> taken;
  for (int i = 0; i < shard_count_; ++i) {
    {
      absl::MutexLock l(&shards_[i].mu);
      taken.swap(shards_[i].changed);
    }
    for (const auto& [id, encoded] : taken) batch->PutLedgerState(id, encoded);
    n += taken.size();
    taken.clear();
  }
  return n;
}

absl::Status LedgerStateTable::MarkDeleted(LedgerSlot* slot) {
  if (slot->state.deleted) return absl::OkStatus();
  LedgerState next = slot->state;
  next.deleted = true;
  next.master_key.clear();
  next.explicit_lac.clear();
  next.has_master_key = next.has_explicit_lac = false;
  absl::Status st = index_->PutLedgerState(
      slot->ledger_id, ledgerstate::Encode(next), /*sync=*/true);
  if (!st.ok()) return st;
  slot->state = std::move(next);
  slot->deleted.store(true);
  Shard& s = ShardOf(slot->ledger_id);
  absl::MutexLock l(&s.mu);
  s.changed.erase(slot->ledger_id);
  return absl::OkStatus();
}

std::vector<uint64_t> LedgerStateTable::LiveLedgers() const {
  std::vector<uint64_t> out;
  for (int i = 0; i < shard_count_; ++i) {
    absl::MutexLock l(&shards_[i].mu);
    for (const auto& [id, slot] : shards_[i].slots) {
      if (!slot->deleted.load()) out.push_back(id);
    }
  }
  return out;
}

std::vector<uint64_t> LedgerStateTable::DeletedLedgers() const {
  std::vector<uint64_t> out;
  for (int i = 0; i < shard_count_; ++i) {
    absl::MutexLock l(&shards_[i].mu);
    for (const auto& [id, slot] : shards_[i].slots) {
      if (slot->deleted.load()) out.push_back(id);
    }
  }
  return out;
}

std::vector<std::shared_ptr<LedgerSlot>> LedgerStateTable::All() const {
  std::vector<std::shared_ptr<LedgerSlot>> out;
  for (int i = 0; i < shard_count_; ++i) {
    absl::MutexLock l(&shards_[i].mu);
    for (const auto& [id, slot] : shards_[i].slots) out.push_back(slot);
  }
  return out;
}

absl::StatusOr<bool> LedgerStateTable::Purge(uint64_t ledger_id) {
  Shard& s = ShardOf(ledger_id);
  // Held across the index write: a FindOrCreate of the same id (which
  // takes this lock) records its fresh state after our delete, so the
  // flush that writes it comes after the delete too.
  absl::MutexLock l(&s.mu);
  auto it = s.slots.find(ledger_id);
  if (it == s.slots.end() || !it->second->deleted.load()) return false;
  if (absl::Status st = index_->DeleteLedgerState(ledger_id, /*sync=*/false);
      !st.ok()) {
    return st;
  }
  s.slots.erase(it);
  return true;
}

}  // namespace bk::bookie
