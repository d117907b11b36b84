// WriteCache: the double-buffered cache where added entries wait for the
// next flush to the entry log.
//
// Two halves of capacity/2 bytes each: adds go to the active half; a flush
// swaps the halves, writes the now-flushing half out, then clears it. An
// entry stays readable (Get looks in both halves) until its half is cleared,
// which the flusher does only after its locations are durable in the index.
//
// Entries are held by handle (EntryBuffer), never copied.
//
// Layout: per half, each ledger's entries sit in a vector in ascending
// entry order. A writer adds a ledger's entries in order, so an add is an
// append (no hashing of the entry id, no table growth spread over memory),
// a lookup is a binary search, and the flusher's snapshot needs no sort of
// the entries, only of the ledgers. An entry added out of order is inserted
// in place; a re-added entry replaces the old handle.
//
// Concurrency: no lock is shared by all adds. The cache is split into
// shards by ledger; each shard has its own mutex and its part of both
// halves. (Adds of one ledger are already serialised by that ledger's own
// rules in the store, so sharding by ledger adds no contention.) The active
// half index is read under the shard's mutex, so an add either lands in the
// half a concurrent Swap left active, or is seen by the flusher's snapshot of
// the old half (see Swap). Byte counts per half are atomics. Put, Get,
// LastEntry and ListEntries may run on any thread; Swap, SnapshotFlushing and
// ClearFlushing are for one flusher at a time.

#ifndef BK_BOOKIE_STORAGE_WRITE_CACHE_H_
#define BK_BOOKIE_STORAGE_WRITE_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/entry_buffer.h"

namespace bk::bookie {

class WriteCache {
 public:
  // An entry of the flushing half. `data` views the bytes the half holds,
  // so it is valid until ClearFlushing (nothing else changes that half):
  // a snapshot takes no reference per entry.
  struct Item {
    uint64_t ledger_id;
    int64_t entry_id;
    absl::string_view data;
    uint32_t data_crc;  // crc32c::Value(data), as given to Put
  };

  // capacity_bytes: both halves together.
  explicit WriteCache(uint64_t capacity_bytes, int shards = 16);

  // Adds (or replaces) an entry in the active half. Returns false, changing
  // nothing, when the active half has no room for it. An entry larger than
  // a half is taken when the active half is empty.
  // `data_crc` is crc32c::Value(*data); the entry log derives its record
  // CRC from it (no second pass over the bytes).
  bool Put(uint64_t ledger_id, int64_t entry_id, const EntryBuffer& data,
           uint32_t data_crc);
  // The entry from either half, or nullptr.
  EntryBuffer Get(uint64_t ledger_id, int64_t entry_id) const;
  // The highest entry id of the ledger in either half, or -1.
  int64_t LastEntry(uint64_t ledger_id) const;
  void ListEntries(uint64_t ledger_id, std::vector<int64_t>* out) const;

  // Flusher side. Swap makes the active half the flushing one.
  // REQUIRES: the flushing half is empty (ClearFlushing ran).
  void Swap();
  // The flushing half's entries, sorted by (ledger, entry); valid until
  // ClearFlushing.
  void SnapshotFlushing(std::vector<Item>* out) const;
  void ClearFlushing();

  uint64_t half_capacity() const { return half_capacity_; }
  uint64_t active_bytes() const;
  uint64_t flushing_bytes() const;
  uint64_t entry_count() const { return entries_.load(); }

 private:
  struct Slot {
    int64_t entry_id;
    EntryBuffer data;
    uint32_t data_crc;
  };
  // One ledger's entries in one half, ascending by entry id, no duplicates.
  using LedgerEntries = std::vector<Slot>;
  struct Half {
    absl::flat_hash_map<uint64_t, LedgerEntries> ledgers;
  };
  // The slot of `entry_id` in `v`, or nullptr.
  static const Slot* Find(const LedgerEntries& v, int64_t entry_id);
  struct Shard {
    mutable absl::Mutex mu;
    Half halves[2] ABSL_GUARDED_BY(mu);
  };

  Shard& ShardOf(uint64_t ledger_id) const;

  // Constant after construction.
  const uint64_t half_capacity_;
  const std::unique_ptr<Shard[]> shards_;
  const int shard_count_;

  // Own synchronisation: changed only by the flusher, read under shard mu.
  std::atomic<int> active_{0};
  std::atomic<uint64_t> bytes_[2] = {0, 0};
  std::atomic<uint64_t> entries_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_WRITE_CACHE_H_
