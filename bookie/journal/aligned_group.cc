#include "bookie/journal/aligned_group.h"

#include <cstring>
#include <new>

#include "bookie/journal/journal_format.h"

namespace bk::bookie {

namespace jf = journal_format;

AlignedGroup::AlignedGroup(size_t alignment) : alignment_(alignment) {}

void AlignedGroup::Reset(size_t bytes) {
  size_ = 0;
  padding_ = 0;
  // Room for the largest padding record: one alignment plus a header.
  const size_t need = bytes + 2 * alignment_;
  if (need <= capacity_) return;
  size_t cap = capacity_ == 0 ? alignment_ * 256 : capacity_;
  while (cap < need) cap *= 2;
  char* p = static_cast<char*>(std::aligned_alloc(alignment_, cap));
  if (p == nullptr) throw std::bad_alloc();  // as operator new would
  data_.reset(p);
  capacity_ = cap;
}

void AlignedGroup::Append(absl::string_view data) {
  std::memcpy(data_.get() + size_, data.data(), data.size());
  size_ += data.size();
}

void AlignedGroup::AppendRecordHeader(absl::string_view header, uint32_t salt) {
  char* at = data_.get() + size_;
  Append(header);
  if (salt != 0) jf::SaltRecordHeader(salt, at);
}

absl::string_view AlignedGroup::Seal(uint32_t salt) {
  padding_ = jf::PaddingFor(size_, alignment_);
  if (padding_ > 0) jf::EncodePadding(padding_, salt, data_.get() + size_);
  size_ += padding_;
  return absl::string_view(data_.get(), size_);
}

}  // namespace bk::bookie
