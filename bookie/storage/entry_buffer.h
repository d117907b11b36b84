// EntryBuffer: the handle by which a received entry travels through the
// bookie without being copied again.
//
// A handle is a view of one packaged entry's bytes (proto/entry_format.h)
// plus a shared owner that keeps them alive. It reads like a shared pointer
// to the bytes: `*b` is the bytes (absl::string_view), `b->size()` their
// length, `if (b)` tells a handle from the empty one (nullptr).
//
// The gRPC handler copies each received body once into the stream's
// EntryArena (entry_arena.h), which packs bodies into large shared blocks,
// and hands the same handle to the journal and to LedgerStorage::AddEntry.
// The write cache keeps the handle (not a copy) until the entry is in an
// entry log; the entry log writer writes straight from it (writev); reads
// from the write cache or the read cache return the handle itself. The
// bytes are immutable once wrapped, so a handle may be shared across
// threads freely. Entries read back from a log own a string each
// (MakeEntryBuffer).

#ifndef BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_
#define BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace bk::bookie {

class EntryBuffer {
 public:
  EntryBuffer() = default;
  // The empty handle, as a null pointer is (`return nullptr;`).
  EntryBuffer(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  // `bytes` must stay valid and unchanged while `owner` lives.
  EntryBuffer(absl::string_view bytes, std::shared_ptr<const void> owner)
      : bytes_(bytes), owner_(std::move(owner)) {}

  const absl::string_view& operator*() const { return bytes_; }
  const absl::string_view* operator->() const { return &bytes_; }
  explicit operator bool() const { return owner_ != nullptr; }

  // What keeps the bytes alive (shared with every copy of the handle).
  const std::shared_ptr<const void>& owner() const { return owner_; }
  // Gives up the owner to the caller; the handle is empty afterwards.
  std::shared_ptr<const void> TakeOwner() && {
    bytes_ = {};
    return std::move(owner_);
  }

  // Handles compare as pointers do: equal when they view the same bytes.
  friend bool operator==(const EntryBuffer& a, const EntryBuffer& b) {
    return a.bytes_.data() == b.bytes_.data() &&
           a.bytes_.size() == b.bytes_.size() &&
           (a.owner_ == nullptr) == (b.owner_ == nullptr);
  }
  friend bool operator==(const EntryBuffer& a, std::nullptr_t) { return !a; }

 private:
  absl::string_view bytes_;
  std::shared_ptr<const void> owner_;
};

// Takes ownership of `bytes` (moved, not copied): one allocation for the
// string's owner, none for its bytes.
inline EntryBuffer MakeEntryBuffer(std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  absl::string_view view(*owner);
  return EntryBuffer(view, std::move(owner));
}

// A block that entries are packed into (EntryArena, ReadCache). Its bytes
// are left uninitialised: each is written before it is read.
inline std::shared_ptr<char[]> NewEntryBlock(size_t n) {
  return std::shared_ptr<char[]>(new char[n > 0 ? n : 1]);
}

// A handle on `n` bytes at `data` inside `block`. It shares the block's
// count (no allocation): the block lives until its last handle is dropped.
inline EntryBuffer BlockEntry(const std::shared_ptr<char[]>& block,
                              const char* data, size_t n) {
  return EntryBuffer(absl::string_view(data, n),
                     std::shared_ptr<const void>(block, data));
}

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_
