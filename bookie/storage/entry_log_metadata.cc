#include "bookie/storage/entry_log_metadata.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/coding.h"

namespace bk::bookie::logmeta {

std::string Encode(const EntryLogMetadata& meta) {
  // Sorted, so equal metadata encodes to equal bytes.
  std::vector<std::pair<uint64_t, uint64_t>> pairs(meta.ledger_bytes.begin(),
                                                   meta.ledger_bytes.end());
  std::sort(pairs.begin(), pairs.end());
  std::string out(kFixedSize + kPairSize * pairs.size(), '\0');
  char* p = out.data();
  coding::PutFixed64BE(p + kTotalOffset, meta.total_bytes);
  coding::PutFixed64BE(p + kEndOffset, meta.end_offset);
  coding::PutFixed32BE(p + kCountOffset, static_cast<uint32_t>(pairs.size()));
  p += kFixedSize;
  for (const auto& [ledger, bytes] : pairs) {
    coding::PutFixed64BE(p, ledger);
    coding::PutFixed64BE(p + 8, bytes);
    p += kPairSize;
  }
  return out;
}

absl::StatusOr<EntryLogMetadata> Decode(absl::string_view bytes) {
  if (bytes.size() < kFixedSize) {
    return absl::DataLossError("entry log metadata: too short");
  }
  const char* p = bytes.data();
  const uint32_t n = coding::GetFixed32BE(p + kCountOffset);
  if (bytes.size() != kFixedSize + size_t{n} * kPairSize) {
    return absl::DataLossError("entry log metadata: bad ledger count");
  }
  EntryLogMetadata meta;
  meta.total_bytes = coding::GetFixed64BE(p + kTotalOffset);
  meta.end_offset = coding::GetFixed64BE(p + kEndOffset);
  meta.ledger_bytes.reserve(n);
  p += kFixedSize;
  for (uint32_t i = 0; i < n; ++i, p += kPairSize) {
    meta.ledger_bytes[coding::GetFixed64BE(p)] = coding::GetFixed64BE(p + 8);
  }
  return meta;
}

}  // namespace bk::bookie::logmeta
