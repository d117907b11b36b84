#include "bookie/storage/read_cache.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace bk::bookie {

ReadCache::ReadCache(uint64_t capacity_bytes, int shards)
    : capacity_(capacity_bytes),
      shard_capacity_(capacity_bytes /
                      static_cast<uint64_t>(std::max(shards, 1))),
      shards_(new Shard[std::max(shards, 1)]),
      shard_count_(std::max(shards, 1)) {}

ReadCache::Shard& ReadCache::ShardOf(uint64_t ledger_id,
                                     int64_t entry_id) const {
  return shards_[absl::HashOf(ledger_id, entry_id) %
                 static_cast<size_t>(shard_count_)];
}

void ReadCache::Put(uint64_t ledger_id, int64_t entry_id,
                    const EntryBuffer& data) {
  if (data->size() > shard_capacity_) return;
  Shard& s = ShardOf(ledger_id, entry_id);
  absl::MutexLock l(&s.mu);
  auto [it, inserted] = s.entries.try_emplace({ledger_id, entry_id}, data);
  if (!inserted) return;  // entries are immutable: the copy held is as good
  s.order.push_back({ledger_id, entry_id});
  s.bytes += data->size();
  bytes_.fetch_add(data->size());
  while (s.bytes > shard_capacity_ && !s.order.empty()) {
    auto victim = s.entries.find(s.order.front());
    s.order.pop_front();
    if (victim == s.entries.end()) continue;  // dropped earlier
    s.bytes -= victim->second->size();
    bytes_.fetch_sub(victim->second->size());
    s.entries.erase(victim);
  }
}

EntryBuffer ReadCache::Get(uint64_t ledger_id, int64_t entry_id) const {
  Shard& s = ShardOf(ledger_id, entry_id);
  absl::MutexLock l(&s.mu);
  auto it = s.entries.find({ledger_id, entry_id});
  return it == s.entries.end() ? nullptr : it->second;
}

void ReadCache::DropLedger(uint64_t ledger_id) {
  for (int i = 0; i < shard_count_; ++i) {
    Shard& s = shards_[i];
    absl::MutexLock l(&s.mu);
    for (auto it = s.entries.begin(); it != s.entries.end();) {
      if (it->first.first == ledger_id) {
        s.bytes -= it->second->size();
        bytes_.fetch_sub(it->second->size());
        s.entries.erase(it++);
      } else {
        ++it;
      }
    }
    // Stale keys left in `order` are skipped on eviction; cap their number.
    if (s.order.size() > 2 * s.entries.size() + 1024) {
      std::deque<std::pair<uint64_t, int64_t>> kept;
      for (const auto& k : s.order) {
        if (s.entries.contains(k)) kept.push_back(k);
      }
      s.order.swap(kept);
    }
  }
}

}  // namespace bk::bookie
