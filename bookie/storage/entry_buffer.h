// EntryBuffer: the handle by which a received entry travels through the
// bookie without being copied.
//
// The gRPC handler receives a packaged entry (proto/entry_format.h) into a
// std::string, wraps it once in an EntryBuffer and hands the same handle to
// the journal and to LedgerStorage::AddEntry. The write cache keeps the
// handle (not a copy) until the entry is in an entry log; the entry log
// writer writes straight from it (writev); reads from the write cache or
// the read cache return the handle itself. The bytes are immutable once
// wrapped, so the handle may be shared across threads freely.

#ifndef BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_
#define BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_

#include <memory>
#include <string>
#include <utility>

namespace bk::bookie {

using EntryBuffer = std::shared_ptr<const std::string>;

// Takes ownership of `bytes` (moved, not copied).
inline EntryBuffer MakeEntryBuffer(std::string bytes) {
  return std::make_shared<const std::string>(std::move(bytes));
}

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_BUFFER_H_
