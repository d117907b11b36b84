// ReadCache: entries read from entry logs (the missed one and the entries
// read ahead after it), kept for readers that follow.
//
// A byte budget split evenly over shards; each shard evicts in insertion
// order (FIFO), which suits the sequential pattern read-ahead creates.
// Entries are handles shared with readers: eviction never invalidates a
// buffer a reader holds. Thread-safe; each shard has its own mutex.

#ifndef BK_BOOKIE_STORAGE_READ_CACHE_H_
#define BK_BOOKIE_STORAGE_READ_CACHE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/entry_buffer.h"

namespace bk::bookie {

class ReadCache {
 public:
  explicit ReadCache(uint64_t capacity_bytes, int shards = 16);

  // Inserts (or refreshes) an entry, evicting the oldest of its shard while
  // over budget. An entry larger than a shard's budget is not kept.
  void Put(uint64_t ledger_id, int64_t entry_id, const EntryBuffer& data);
  // The entry or nullptr.
  EntryBuffer Get(uint64_t ledger_id, int64_t entry_id) const;
  // Drops every entry of the ledger (after it is deleted).
  void DropLedger(uint64_t ledger_id);

  uint64_t bytes() const { return bytes_.load(); }
  uint64_t capacity() const { return capacity_; }

 private:
  using Key = std::pair<uint64_t, int64_t>;
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<Key, EntryBuffer> entries ABSL_GUARDED_BY(mu);
    std::deque<Key> order ABSL_GUARDED_BY(mu);  // may hold stale keys
    uint64_t bytes ABSL_GUARDED_BY(mu) = 0;
  };

  Shard& ShardOf(uint64_t ledger_id, int64_t entry_id) const;

  // Constant after construction.
  const uint64_t capacity_;
  const uint64_t shard_capacity_;
  const std::unique_ptr<Shard[]> shards_;
  const int shard_count_;

  // Own synchronisation.
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_READ_CACHE_H_
