// EntryArena: copies received entries into large shared blocks.
//
// Why: an add used to keep the body string its message was parsed into
// alive until the write cache was flushed, so every body was a malloc of
// just over 1 KiB (above glibc's per-thread cache) on a gRPC thread and a
// free of cold memory, in bulk, on the flusher thread: about 9 % of the
// machine at the end-to-end peak. With an arena, the parsed message keeps
// its strings for the next message (no allocation per entry), each body is
// copied once, while it is hot, to the end of the current block, and a
// block is one allocation per hundreds of entries, freed when the last
// handle into it (journal, write cache, a reader) is dropped.
//
// Blocks start at kFirstBlockBytes and double up to kMaxBlockBytes as the
// stream keeps adding, so a stream that adds little pins little memory: at
// most one partly filled block per stream (256 KiB) beyond what the write
// cache and the journal hold. 1 MiB blocks were no faster in
// bookie_add_bench. An entry larger than a quarter of kMaxBlockBytes gets
// an exact block of its own (its copy outweighs the allocation), leaving
// the current block in use.
//
// With an EntryBlockPool (entry_block_pool.h) the 256 KiB blocks come from
// the pool, whose memory was reserved and touched at start; the smaller
// first blocks, the exact ones, and any block while the pool has none free
// come from malloc as before.
//
// Not thread-safe: one arena per add stream (its reads are one at a time).
// The handles it returns are, like every EntryBuffer.

#ifndef BK_BOOKIE_STORAGE_ENTRY_ARENA_H_
#define BK_BOOKIE_STORAGE_ENTRY_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/string_view.h"
#include "bookie/storage/entry_block_pool.h"
#include "bookie/storage/entry_buffer.h"

namespace bk::bookie {

class EntryArena {
 public:
  static constexpr size_t kFirstBlockBytes = 64 << 10;
  static constexpr size_t kMaxBlockBytes = EntryBlockPool::kBlockBytes;

  EntryArena() = default;
  // `pool` may be null (every block from malloc).
  explicit EntryArena(std::shared_ptr<EntryBlockPool> pool)
      : pool_(std::move(pool)) {}
  EntryArena(const EntryArena&) = delete;
  EntryArena& operator=(const EntryArena&) = delete;

  // A handle to a copy of `bytes`.
  EntryBuffer Copy(absl::string_view bytes);

  // Blocks allocated so far (a test and benchmark figure).
  uint64_t blocks() const { return blocks_; }
  // Of those, the ones taken from the pool.
  uint64_t pool_blocks() const { return pool_blocks_; }

 private:
  // A block of `n` bytes: from the pool when it is a pool block's size and
  // the pool has one free.
  std::shared_ptr<char[]> NewBlock(size_t n);

  const std::shared_ptr<EntryBlockPool> pool_;
  std::shared_ptr<char[]> block_;  // the block being filled, or null
  size_t used_ = 0;
  size_t capacity_ = 0;
  size_t next_block_bytes_ = kFirstBlockBytes;
  uint64_t blocks_ = 0;
  uint64_t pool_blocks_ = 0;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_ARENA_H_
