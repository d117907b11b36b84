#include "bookie/storage/write_cache.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace bk::bookie {
namespace {

bool EntryLess(const int64_t& id, const auto& slot) {
  return id < slot.entry_id;
}

}  // namespace

WriteCache::WriteCache(uint64_t capacity_bytes, int shards)
    : half_capacity_(std::max<uint64_t>(capacity_bytes / 2, 1)),
      shards_(new Shard[std::max(shards, 1)]),
      shard_count_(std::max(shards, 1)) {}

WriteCache::Shard& WriteCache::ShardOf(uint64_t ledger_id) const {
  const size_t h = absl::HashOf(ledger_id);
  return shards_[h % static_cast<size_t>(shard_count_)];
}

const WriteCache::Slot* WriteCache::Find(const LedgerEntries& v,
                                         int64_t entry_id) {
  if (v.empty() || entry_id > v.back().entry_id) return nullptr;
  // upper_bound - 1: the last slot at or below entry_id.
  auto it = std::upper_bound(v.begin(), v.end(), entry_id, EntryLess<Slot>);
  if (it == v.begin()) return nullptr;
  --it;
  return it->entry_id == entry_id ? &*it : nullptr;
}

bool WriteCache::Put(uint64_t ledger_id, int64_t entry_id,
                     const EntryBuffer& data, uint32_t data_crc) {
  Shard& shard = ShardOf(ledger_id);
  absl::MutexLock l(&shard.mu);
  // Read under the shard mutex: see the class comment.
  const int h = active_.load(std::memory_order_acquire);
  Half& half = shard.halves[h];
  const uint64_t size = data->size();
  const uint64_t before = bytes_[h].fetch_add(size);
  if (before + size > half_capacity_ && before > 0) {
    bytes_[h].fetch_sub(size);
    return false;
  }
  LedgerEntries& v = half.ledgers[ledger_id];
  if (v.empty() || v.back().entry_id < entry_id) {
    v.push_back(Slot{entry_id, data, data_crc});  // the common case: in order
    entries_.fetch_add(1);
    return true;
  }
  auto it = std::upper_bound(v.begin(), v.end(), entry_id, EntryLess<Slot>);
  if (it != v.begin() && (it - 1)->entry_id == entry_id) {
    bytes_[h].fetch_sub((it - 1)->data->size());
    (it - 1)->data = data;
    (it - 1)->data_crc = data_crc;
  } else {
    v.insert(it, Slot{entry_id, data, data_crc});
    entries_.fetch_add(1);
  }
  return true;
}

EntryBuffer WriteCache::Get(uint64_t ledger_id, int64_t entry_id) const {
  Shard& shard = ShardOf(ledger_id);
  absl::MutexLock l(&shard.mu);
  const int h = active_.load(std::memory_order_acquire);
  // The active half holds the newest copy of a re-added entry.
  for (int i : {h, 1 - h}) {
    auto it = shard.halves[i].ledgers.find(ledger_id);
    if (it == shard.halves[i].ledgers.end()) continue;
    if (const Slot* slot = Find(it->second, entry_id)) return slot->data;
  }
  return nullptr;
}

int64_t WriteCache::LastEntry(uint64_t ledger_id) const {
  Shard& shard = ShardOf(ledger_id);
  absl::MutexLock l(&shard.mu);
  int64_t last = -1;
  for (const Half& half : shard.halves) {
    auto it = half.ledgers.find(ledger_id);
    if (it != half.ledgers.end() && !it->second.empty()) {
      last = std::max(last, it->second.back().entry_id);
    }
  }
  return last;
}

void WriteCache::ListEntries(uint64_t ledger_id,
                             std::vector<int64_t>* out) const {
  Shard& shard = ShardOf(ledger_id);
  absl::MutexLock l(&shard.mu);
  for (const Half& half : shard.halves) {
    auto it = half.ledgers.find(ledger_id);
    if (it == half.ledgers.end()) continue;
    for (const Slot& slot : it->second) out->push_back(slot.entry_id);
  }
}

void WriteCache::Swap() {
  // An add that read the old index under its shard mutex finishes before
  // the flusher takes that mutex in SnapshotFlushing, so it is flushed.
  active_.store(1 - active_.load(), std::memory_order_release);
}

void WriteCache::SnapshotFlushing(std::vector<Item>* out) const {
  const int f = 1 - active_.load(std::memory_order_acquire);
  out->clear();
  // Ledgers in ascending order; each ledger's entries are already sorted.
  // The flushing half no longer changes (adds go to the other), but its
  // shard mutexes are still taken for the memory order with the last adds.
  std::vector<std::pair<uint64_t, const LedgerEntries*>> ledgers;
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    for (const auto& [id, v] : shards_[s].halves[f].ledgers) {
      ledgers.emplace_back(id, &v);
    }
  }
  std::sort(ledgers.begin(), ledgers.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t n = 0;
  for (const auto& [id, v] : ledgers) n += v->size();
  out->reserve(n);
  for (const auto& [id, v] : ledgers) {
    for (const Slot& slot : *v)
      out->push_back(Item{id, slot.entry_id, *slot.data, slot.data_crc});
  }
}

void WriteCache::ClearFlushing() {
  const int f = 1 - active_.load(std::memory_order_acquire);
  uint64_t removed = 0;
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    Half& half = shards_[s].halves[f];
    for (const auto& [id, v] : half.ledgers) removed += v.size();
    half.ledgers.clear();
  }
  entries_.fetch_sub(removed);
  bytes_[f].store(0);
}

uint64_t WriteCache::active_bytes() const {
  return bytes_[active_.load()].load();
}

uint64_t WriteCache::flushing_bytes() const {
  return bytes_[1 - active_.load()].load();
}

}  // namespace bk::bookie
