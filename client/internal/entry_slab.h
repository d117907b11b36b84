// EntrySlab: one writer's packaged entries carved out of shared buffers, so
// that an add does not cost a heap allocation of its own.
//
// A packaged entry is a gRPC slice (add_wire.h). Made alone, each is one
// malloc of about the entry's size and one free on whichever gRPC thread
// drops the last reference; above glibc's per-thread cache (1 KiB) both go
// through the arena's lock and bins. A slab is one refcounted buffer that
// holds many entries back to back; each entry is a sub-slice of it, which
// takes a reference and allocates nothing. The buffer is freed when the
// last entry carved from it is released.
//
// What a slab may pin: an entry keeps its whole slab alive. A writer's
// entries are confirmed in order, so its oldest pending entry pins at most
// the slabs after it, all holding the writer's own pending entries. A new
// slab is sized by the bytes the writer has pending (at least the entry,
// at most kMaxSlabBytes): a writer with one add in flight gets a buffer of
// one entry, as without a slab, and one with thousands in flight gets
// kMaxSlabBytes. Entries above kMaxPieceBytes get a buffer of their own.
// Release() drops the writer's reference to its current slab (call it when
// nothing is pending), so an idle writer holds nothing.
//
// Not thread-safe: owned by one writer, used under its lock.

#ifndef BK_CLIENT_INTERNAL_ENTRY_SLAB_H_
#define BK_CLIENT_INTERNAL_ENTRY_SLAB_H_

#include <grpcpp/support/slice.h>

#include <cstddef>
#include <cstdint>

namespace bk::client::internal {

// A new buffer of `n` bytes the caller fills through `*data` (written once
// the call returns): one allocation, of any size.
grpc::Slice NewEntryBuffer(size_t n, char** data);

class EntrySlab {
 public:
  static constexpr size_t kMaxSlabBytes = 64 << 10;
  static constexpr size_t kMaxPieceBytes = kMaxSlabBytes / 8;

  // Room for `n` bytes the caller fills, then hands to Finish(n). `pending`
  // is the bytes the writer has in flight, which sizes a new slab.
  char* Reserve(size_t n, int64_t pending);
  // The `n` bytes just filled as one slice.
  grpc::Slice Finish(size_t n);
  // Drops this writer's reference to its current slab.
  void Release();

  // Slabs and lone buffers allocated so far (for tests).
  int64_t allocations() const { return allocations_; }

 private:
  grpc::Slice current_;   // the slab being filled
  char* base_ = nullptr;  // current_'s bytes
  size_t used_ = 0;       // bytes of current_ handed out
  size_t reserved_ = 0;   // where the bytes Reserve gave out start
  grpc::Slice lone_;      // an entry above kMaxPieceBytes, until Finish
  int64_t allocations_ = 0;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_ENTRY_SLAB_H_
