#include "common/query_string.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> Decode(absl::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      out.push_back(' ');
    } else if (in[i] == '%') {
      const bool room = i + 2 < in.size();
      const int hi = room ? HexValue(in[i + 1]) : -1;
      const int lo = room ? HexValue(in[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "malformed %-escape in query near '", in.substr(i, 3), "'"));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseQuery(
    const std::string& query) {
  std::map<std::string, std::string> out;
  if (query.empty()) return out;
  for (absl::string_view part : absl::StrSplit(query, '&')) {
    if (part.empty()) continue;
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(part, absl::MaxSplits('=', 1));
    auto key = Decode(kv.first);
    if (!key.ok()) return key.status();
    auto value = Decode(kv.second);
    if (!value.ok()) return value.status();
    if (key->empty()) {
      return absl::InvalidArgumentError("query parameter without a name");
    }
    if (!out.emplace(*key, *value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter '", *key, "' given twice"));
    }
  }
  return out;
}

}  // namespace bk
