// EntryBlockPool: the memory received entries are packed into, reserved
// once at start and reused, so a bookie does not fault it in page by page
// under its first load.
//
// Why: EntryArena (entry_arena.h) packs received entries into 256 KiB
// blocks that live until the write cache half holding them is in an entry
// log. A fresh bookie allocated them from malloc, so the first write cache's
// worth of entries touched fresh pages: about 11 us of CPU per 4 KiB page
// on this project's VM (bookie_add_bench's `machine:` line), 16,000 faults
// for a 64 MiB cache, all inside the first second or two of a bookie's
// first load. Measured end to end (bench/results/bkbench_write.md,
// 2026-12-06): on a fresh cluster at 45,000 adds/s the bookies took about
// 20,000 page faults in the first second of load against under 500 a second
// afterwards, and that second's add p99 was twice the rest's.
//
// How: one anonymous mapping of `capacity_bytes` (rounded up to whole
// blocks) cut into blocks of kBlockBytes. It asks for transparent huge
// pages (madvise; a hint) and, with `pre_touch`, is populated when the pool
// is made: MADV_POPULATE_WRITE, or a write per page on a kernel without it.
// Take hands out a free block whose handle gives it back when its last
// owner drops it, from whatever thread that is; when every block is out it
// returns null and the caller allocates as before, so the pool bounds only
// what is reserved, never what may be received.
//
// Lifetime: the mapping lives until the pool and every block taken from it
// are gone, in any order.
//
// Thread-safe.

#ifndef BK_BOOKIE_STORAGE_ENTRY_BLOCK_POOL_H_
#define BK_BOOKIE_STORAGE_ENTRY_BLOCK_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace bk::bookie {

class EntryBlockPool {
 public:
  // The size of every block (EntryArena's largest block).
  static constexpr size_t kBlockBytes = 256 << 10;

  // A pool of `capacity_bytes`, rounded up to whole blocks; 0 gives a pool
  // with no blocks (every Take returns null). With `pre_touch` every page
  // is resident when this returns. Fails only when the memory cannot be
  // mapped.
  static absl::StatusOr<std::shared_ptr<EntryBlockPool>> Create(
      uint64_t capacity_bytes, bool pre_touch);

  ~EntryBlockPool();
  EntryBlockPool(const EntryBlockPool&) = delete;
  EntryBlockPool& operator=(const EntryBlockPool&) = delete;

  // A free block of kBlockBytes, returned to the pool when its last owner
  // is dropped; null when every block is out.
  std::shared_ptr<char[]> Take();

  size_t blocks() const;       // all blocks
  size_t free_blocks() const;  // blocks not taken
  // The mapping (tests check its residency with mincore).
  const char* region() const;
  size_t region_bytes() const;
  // Whether the pool's pages were populated at Create (pre_touch asked and
  // the kernel did it or the pages were written).
  bool pre_touched() const;

 private:
  struct Core;
  explicit EntryBlockPool(std::shared_ptr<Core> core);
  const std::shared_ptr<Core> core_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_BLOCK_POOL_H_
