// ReadCache: entries read from entry logs (the missed one and the entries
// read ahead after it), kept for readers that follow.
//
// A ring of segments, as BookKeeper's DbLedgerStorage read cache is: the
// byte budget is split into `segments` blocks, each entry is copied to the
// end of the current block, and an index maps (ledger, entry) to its place.
// When the current block is full the ring moves on: the oldest block's
// entries leave the index together and the segment takes a fresh block
// (the old one is freed with its last reader's handle). So an entry costs
// one copy and one index insert, eviction frees nothing per entry, and the
// cache holds at most its budget. (The cache
// this replaced kept each entry in an allocation of its own and evicted
// them one by one: touching and freeing cold memory per entry was about a
// third of a bookie's CPU in a catch-up read.)
//
// Entries are handles that share their block: eviction never invalidates
// a buffer a reader holds, which keeps its block until it lets go. An entry
// larger than one segment is not kept. Thread-safe (one mutex; lookups share
// it).

#ifndef BK_BOOKIE_STORAGE_READ_CACHE_H_
#define BK_BOOKIE_STORAGE_READ_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/entry_buffer.h"

namespace bk::bookie {

class ReadCache {
 public:
  static constexpr int kDefaultSegments = 4;

  // A budget of 0 keeps nothing (Put returns a private copy).
  explicit ReadCache(uint64_t capacity_bytes, int segments = kDefaultSegments);
  ReadCache(const ReadCache&) = delete;
  ReadCache& operator=(const ReadCache&) = delete;

  // Copies `bytes` into the cache unless the entry is there already, and
  // returns the cached handle. An entry too large to keep comes back as a
  // private copy. Entries are immutable: a second Put of one keeps the
  // first copy. `*inserted` (if given) says whether this call cached it.
  EntryBuffer Put(uint64_t ledger_id, int64_t entry_id, absl::string_view bytes,
                  bool* inserted = nullptr);
  // The entry or nullptr.
  EntryBuffer Get(uint64_t ledger_id, int64_t entry_id) const;
  // Drops every entry of the ledger (after it is deleted). Their bytes
  // stay in their segments until the ring reuses them.
  void DropLedger(uint64_t ledger_id);

  // Bytes of the entries the cache holds.
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  uint64_t capacity() const { return capacity_; }
  // Bytes of one segment; larger entries are not kept.
  uint64_t segment_bytes() const { return segment_bytes_; }
  // Blocks allocated so far (a test figure: one per segment filled).
  uint64_t blocks_allocated() const;

 private:
  using Key = std::pair<uint64_t, int64_t>;
  struct Place {
    uint32_t segment;
    uint32_t offset;
    uint32_t size;
  };
  struct Segment {
    std::shared_ptr<char[]> block;  // null until first used
    uint64_t used = 0;
    std::vector<Key> keys;  // in insertion order; may name dropped entries
  };

  EntryBuffer HandleOf(const Place& p) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Moves to the next segment, evicting what it held.
  void Advance() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const uint64_t capacity_;
  const uint64_t segment_bytes_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, Place> index_ ABSL_GUARDED_BY(mu_);
  std::vector<Segment> segments_ ABSL_GUARDED_BY(mu_);
  uint32_t current_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t blocks_allocated_ ABSL_GUARDED_BY(mu_) = 0;

  // Own synchronisation (written under mu_, read without it).
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_READ_CACHE_H_
