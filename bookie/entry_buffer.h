// EntryBuffer: one packaged entry's bytes, received once from the wire and
// shared by reference between the write cache, the journal and the entry
// log, so the payload is never copied between layers.

#ifndef BK_BOOKIE_ENTRY_BUFFER_H_
#define BK_BOOKIE_ENTRY_BUFFER_H_

#include <memory>
#include <string>

namespace bk::bookie {

using EntryBuffer = std::shared_ptr<const std::string>;

// Takes ownership of `bytes` without copying them.
inline EntryBuffer MakeEntryBuffer(std::string&& bytes) {
  return std::make_shared<const std::string>(std::move(bytes));
}

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ENTRY_BUFFER_H_
