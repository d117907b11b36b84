#include "bookie/storage/entry_arena.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace bk::bookie {

std::shared_ptr<char[]> EntryArena::NewBlock(size_t n) {
  // Default-initialised: the bytes are written before they are read.
  return std::shared_ptr<char[]>(new char[std::max<size_t>(n, 1)]);
}

EntryBuffer EntryArena::Copy(absl::string_view bytes) {
  const size_t n = bytes.size();
  if (n > kMaxBlockBytes / 4) {
    // A block of its own: a large entry does not end the current block.
    std::shared_ptr<char[]> own = NewBlock(n);
    ++blocks_;
    if (n > 0) std::memcpy(own.get(), bytes.data(), n);
    absl::string_view view(own.get(), n);
    return EntryBuffer(view, std::move(own));
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
  // An aliasing handle: it shares the block's count, no allocation.
  return EntryBuffer(absl::string_view(dst, n),
                     std::shared_ptr<const void>(block_, dst));
}

}  // namespace bk::bookie
