#include "metadata/layout.h"

#include <cstdio>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace bk::metadata {
namespace {

bool AllDigits(const std::string& s) {
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> LedgerPathParts(LedgerId id) {
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%019lld", static_cast<long long>(id));
  const std::string s(digits);
  return {s.substr(0, 3), s.substr(3, 4), s.substr(7, 4), s.substr(11, 4),
          "L" + s.substr(15, 4)};
}

int LedgerDirWidth(int level) { return level == 0 ? 3 : 4; }

bool IsLedgerDirName(int level, const std::string& name) {
  return static_cast<int>(name.size()) == LedgerDirWidth(level) &&
         AllDigits(name);
}

std::optional<LedgerId> ParseLedgerId(const std::vector<std::string>& dirs,
                                      const std::string& leaf) {
  if (dirs.size() != kLedgerDirLevels || leaf.size() != 5 || leaf[0] != 'L') {
    return std::nullopt;
  }
  std::string digits;
  for (int i = 0; i < kLedgerDirLevels; ++i) {
    if (!IsLedgerDirName(i, dirs[i])) return std::nullopt;
    digits += dirs[i];
  }
  const std::string tail = leaf.substr(1);
  if (!AllDigits(tail)) return std::nullopt;
  digits += tail;
  LedgerId id = 0;
  if (!absl::SimpleAtoi(digits, &id) || id < 0) return std::nullopt;
  return id;
}

std::string Layout::Ledger(LedgerId id) const {
  return absl::StrCat(Ledgers(), "/", absl::StrJoin(LedgerPathParts(id), "/"));
}

absl::Status ValidateBookieId(const std::string& id) {
  if (id.empty() || id.find('/') != std::string::npos || id == "." ||
      id == ".." || id == Layout::kReadonlyDir) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid bookie id '", id, "'"));
  }
  return absl::OkStatus();
}

bool IsNodePath(absl::string_view path) {
  const size_t first_slash = path.find('/');
  const absl::string_view top = path.substr(0, first_slash);
  if (top != kCoordinationDir && top != kPlacementsDir) return false;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

absl::Status ValidateNodePath(const std::string& path) {
  if (!IsNodePath(path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid node path '", path, "': must be relative to the root, under ",
        kCoordinationDir, "/ or ", kPlacementsDir,
        "/, without empty, '.' or '..' components"));
  }
  return absl::OkStatus();
}

std::string ParentPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string MakeInstanceId() {
  // An identifier, not an algorithm's input: an unseeded generator is right.
  absl::BitGen gen;
  const uint64_t hi = absl::Uniform<uint64_t>(gen);
  const uint64_t lo = absl::Uniform<uint64_t>(gen);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace bk::metadata
