// The explicit LAC as the bookie stores and journals it: 8 bytes, big-endian
// two's complement.

#ifndef BK_BOOKIE_ENGINE_LAC_CODEC_H_
#define BK_BOOKIE_ENGINE_LAC_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "proto/coding.h"

namespace bk::bookie {

inline std::string EncodeLac(int64_t lac) {
  std::string s(8, '\0');
  coding::PutFixed64BE(s.data(), static_cast<uint64_t>(lac));
  return s;
}

inline absl::StatusOr<int64_t> DecodeLac(absl::string_view s) {
  if (s.size() != 8) {
    return absl::DataLossError(
        absl::StrCat("stored explicit LAC has ", s.size(), " bytes, not 8"));
  }
  return static_cast<int64_t>(coding::GetFixed64BE(s.data()));
}

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ENGINE_LAC_CODEC_H_
