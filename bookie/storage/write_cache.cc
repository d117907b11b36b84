#include "bookie/storage/write_cache.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace bk::bookie {

WriteCache::WriteCache(uint64_t capacity_bytes, int shards)
    : half_capacity_(std::max<uint64_t>(capacity_bytes / 2, 1)),
      shards_(new Shard[std::max(shards, 1)]),
      shard_count_(std::max(shards, 1)) {}

WriteCache::Shard& WriteCache::ShardOf(uint64_t ledger_id,
                                       int64_t entry_id) const {
  const size_t h = absl::HashOf(ledger_id, entry_id);
  return shards_[h % static_cast<size_t>(shard_count_)];
}

bool WriteCache::Put(uint64_t ledger_id, int64_t entry_id,
                     const EntryBuffer& data) {
  Shard& shard = ShardOf(ledger_id, entry_id);
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
  auto [it, inserted] = half.entries.try_emplace({ledger_id, entry_id}, data);
  if (!inserted) {
    bytes_[h].fetch_sub(it->second->size());
    it->second = data;
  } else {
    entries_.fetch_add(1);
  }
  int64_t& last = half.last_entry.try_emplace(ledger_id, -1).first->second;
  last = std::max(last, entry_id);
  return true;
}

EntryBuffer WriteCache::Get(uint64_t ledger_id, int64_t entry_id) const {
  Shard& shard = ShardOf(ledger_id, entry_id);
  absl::MutexLock l(&shard.mu);
  const int h = active_.load(std::memory_order_acquire);
  // The active half holds the newest copy of a re-added entry.
  for (int i : {h, 1 - h}) {
    auto it = shard.halves[i].entries.find({ledger_id, entry_id});
    if (it != shard.halves[i].entries.end()) return it->second;
  }
  return nullptr;
}

int64_t WriteCache::LastEntry(uint64_t ledger_id) const {
  int64_t last = -1;
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    for (const Half& half : shards_[s].halves) {
      auto it = half.last_entry.find(ledger_id);
      if (it != half.last_entry.end()) last = std::max(last, it->second);
    }
  }
  return last;
}

void WriteCache::ListEntries(uint64_t ledger_id,
                             std::vector<int64_t>* out) const {
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    for (const Half& half : shards_[s].halves) {
      if (!half.last_entry.contains(ledger_id)) continue;
      for (const auto& [key, data] : half.entries) {
        if (key.first == ledger_id) out->push_back(key.second);
      }
    }
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
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    for (const auto& [key, data] : shards_[s].halves[f].entries) {
      out->push_back(Item{key.first, key.second, data});
    }
  }
  std::sort(out->begin(), out->end(), [](const Item& a, const Item& b) {
    return a.ledger_id != b.ledger_id ? a.ledger_id < b.ledger_id
                                      : a.entry_id < b.entry_id;
  });
}

void WriteCache::ClearFlushing() {
  const int f = 1 - active_.load(std::memory_order_acquire);
  uint64_t removed = 0;
  for (int s = 0; s < shard_count_; ++s) {
    absl::MutexLock l(&shards_[s].mu);
    Half& half = shards_[s].halves[f];
    removed += half.entries.size();
    half.entries.clear();
    half.last_entry.clear();
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
