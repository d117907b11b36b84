// AlignedGroup: one journal group assembled in an aligned buffer and padded
// to the alignment, so that it can be written with one direct (O_DIRECT)
// write that never rewrites a block of an earlier group.
//
// The journal thread copies each record (header, payload) into the buffer:
// one copy in user space instead of the kernel's copy into the page cache,
// which at small entries costs the journal thread several times more.
// The buffer grows to the largest group seen and is reused.
//
// Not thread-safe: the journal thread's.

#ifndef BK_BOOKIE_JOURNAL_ALIGNED_GROUP_H_
#define BK_BOOKIE_JOURNAL_ALIGNED_GROUP_H_

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "absl/strings/string_view.h"

namespace bk::bookie {

class AlignedGroup {
 public:
  // `alignment`: a power of two >= 512.
  explicit AlignedGroup(size_t alignment);

  // Empties the buffer, making room for `bytes` of records plus padding.
  void Reset(size_t bytes);
  // Copies `data` to the end. REQUIRES: the total stays within Reset's
  // `bytes`.
  void Append(absl::string_view data);
  // Appends a record header (journal_format.h) with `salt` XORed into its
  // crc, as the file it is written to wants it.
  void AppendRecordHeader(absl::string_view header, uint32_t salt);
  // Appends the padding record (journal_format.h) that takes the content to
  // a multiple of the alignment and returns the whole image: aligned start
  // and length. The padding record is salted with `salt`.
  absl::string_view Seal(uint32_t salt);

  size_t padding_bytes() const { return padding_; }
  size_t capacity() const { return capacity_; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  const size_t alignment_;
  std::unique_ptr<char, Free> data_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  size_t padding_ = 0;  // of the last Seal
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_ALIGNED_GROUP_H_
