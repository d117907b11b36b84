#include "bookie/storage/entry_arena.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace bk::bookie {

std::shared_ptr<char[]> EntryArena::NewBlock(size_t n) {
  if (pool_ != nullptr && n == EntryBlockPool::kBlockBytes) {
    if (std::shared_ptr<char[]> b = pool_->Take()) {
      ++pool_blocks_;
      return b;
    }
  }
  return NewEntryBlock(n);
}

EntryBuffer EntryArena::Copy(absl::string_view bytes) {
  const size_t n = bytes.size();
  if (n > kMaxBlockBytes / 4) {
    // A block of its own: a large entry does not end the current block.
    std::shared_ptr<char[]> own = NewEntryBlock(n);
    ++blocks_;
    if (n > 0) std::memcpy(own.get(), bytes.data(), n);
    return BlockEntry(own, own.get(), n);
  }
  if (block_ == nullptr || capacity_ - used_ < n) {
    capacity_ = std::max(next_block_bytes_, n);
    block_ = NewBlock(capacity_);
    used_ = 0;
    ++blocks_;
    next_block_bytes_ = std::min(next_block_bytes_ * 2, kMaxBlockBytes);
  }
  char* dst = block_.get() + used_;
  if (n > 0) std::memcpy(dst, bytes.data(), n);
  used_ += n;
  return BlockEntry(block_, dst, n);
}

}  // namespace bk::bookie
