#include "placement/isolation_groups.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk::placement {

absl::StatusOr<std::vector<std::string>> ParseGroupList(
    absl::string_view list) {
  std::vector<std::string> names;
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    for (char c : part) {
      if (absl::ascii_isspace(c) || c == '/') {
        return absl::InvalidArgumentError(absl::StrCat(
            "isolation group name \"", part, "\" holds a blank or a '/'"));
      }
    }
    names.emplace_back(part);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

absl::StatusOr<IsolationGroups> IsolationGroupsOf(const LedgerHints& hints) {
  IsolationGroups groups;
  const auto& metadata = hints.custom_metadata;
  if (auto it = metadata.find(std::string(kAffinityGroupPrimaryKey));
      it != metadata.end()) {
    absl::StatusOr<std::vector<std::string>> parsed =
        ParseGroupList(it->second);
    if (!parsed.ok()) return parsed.status();
    groups.primary = *std::move(parsed);
  }
  if (auto it = metadata.find(std::string(kAffinityGroupSecondaryKey));
      it != metadata.end()) {
    absl::StatusOr<std::vector<std::string>> parsed =
        ParseGroupList(it->second);
    if (!parsed.ok()) return parsed.status();
    for (std::string& name : *parsed) {
      if (!std::binary_search(groups.primary.begin(), groups.primary.end(),
                              name)) {
        groups.secondary.push_back(std::move(name));
      }
    }
    if (groups.primary.empty() && !groups.secondary.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kAffinityGroupSecondaryKey, " names groups but ",
                       kAffinityGroupPrimaryKey, " names none"));
    }
  }
  return groups;
}

bool SharesGroup(const std::vector<std::string>& bookie_groups,
                 const std::vector<std::string>& groups) {
  auto a = bookie_groups.begin();
  auto b = groups.begin();
  while (a != bookie_groups.end() && b != groups.end()) {
    if (*a == *b) return true;
    if (*a < *b) {
      ++a;
    } else {
      ++b;
    }
  }
  return false;
}

}  // namespace bk::placement
