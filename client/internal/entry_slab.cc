#include "client/internal/entry_slab.h"

#include <grpc/slice.h>

#include <algorithm>
#include <utility>

namespace bk::client::internal {

grpc::Slice NewEntryBuffer(size_t n, char** data) {
  // Always refcounted: a small grpc_slice_malloc keeps its bytes inside the
  // slice struct, so a pointer to them would not outlive this frame.
  grpc_slice s = grpc_slice_malloc_large(n);
  *data = reinterpret_cast<char*>(s.data.refcounted.bytes);
  return grpc::Slice(s, grpc::Slice::STEAL_REF);
}

char* EntrySlab::Reserve(size_t n, int64_t pending) {
  char* data;
  if (n > kMaxPieceBytes) {
    lone_ = NewEntryBuffer(n, &data);
    ++allocations_;
    return data;
  }
  if (current_.size() == 0 || used_ + n > current_.size()) {
    const size_t want =
        pending > 0 ? static_cast<size_t>(pending) + n : size_t{0};
    current_ = NewEntryBuffer(std::clamp(want, n, kMaxSlabBytes), &base_);
    used_ = 0;
    ++allocations_;
  }
  reserved_ = used_;
  return base_ + used_;
}

grpc::Slice EntrySlab::Finish(size_t n) {
  if (lone_.size() > 0) return std::exchange(lone_, grpc::Slice());
  used_ = reserved_ + n;
  return current_.sub(reserved_, used_);
}

void EntrySlab::Release() {
  current_ = grpc::Slice();
  base_ = nullptr;
  used_ = 0;
}

}  // namespace bk::client::internal
