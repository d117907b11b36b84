#include "placement/topology.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk::placement {

absl::StatusOr<std::string> ParseNetworkLocation(absl::string_view location) {
  if (location.empty() || location.front() != '/' || location.back() == '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "network location \"", location, "\" is not of the form /region/rack"));
  }
  for (absl::string_view part : absl::StrSplit(location.substr(1), '/')) {
    bool bad = part.empty();
    for (char c : part) bad = bad || absl::ascii_isspace(c);
    if (bad) {
      return absl::InvalidArgumentError(absl::StrCat(
          "network location \"", location, "\" has an empty or blank part"));
    }
  }
  return std::string(location);
}

std::string NetworkLocationOrDefault(absl::string_view location) {
  absl::StatusOr<std::string> parsed = ParseNetworkLocation(location);
  return parsed.ok() ? *std::move(parsed) : std::string(kDefaultRack);
}

std::string RegionOf(absl::string_view location) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(location.substr(location.empty() ? 0 : 1), '/');
  if (parts.size() < 2) return std::string(kDefaultRegion);
  return std::string(parts.front());
}

Topology::Member Topology::MemberOf(const BookieNode& node, bool readonly) {
  Topology::Member member;
  member.rack = NetworkLocationOrDefault(node.network_location);
  member.readonly = readonly;
  member.region = RegionOf(member.rack);
  member.groups = node.groups;
  std::sort(member.groups.begin(), member.groups.end());
  member.groups.erase(std::unique(member.groups.begin(), member.groups.end()),
                      member.groups.end());
  return member;
}

void Topology::SetMembers(const std::vector<BookieNode>& writable,
                          const std::vector<BookieNode>& readonly) {
  members_.clear();
  for (const BookieNode& node : writable) {
    members_[node.id] = MemberOf(node, false);
  }
  for (const BookieNode& node : readonly) {
    members_[node.id] = MemberOf(node, true);
  }
  writable_.clear();
  for (const auto& [id, member] : members_) {
    if (!member.readonly) writable_.push_back(id);
  }
  std::sort(writable_.begin(), writable_.end());
  absl::erase_if(reports_, [this](const auto& entry) {
    return !members_.contains(entry.first);
  });
}

void Topology::SetReport(const BookieId& id, const BookieInfo& info,
                         absl::Time received_at) {
  auto [it, inserted] =
      reports_.try_emplace(id, BookieReport{info, received_at});
  if (!inserted && it->second.received_at <= received_at) {
    it->second = BookieReport{info, received_at};
  }
}

BookieState Topology::State(const BookieId& id) const {
  auto it = members_.find(id);
  if (it == members_.end()) return BookieState::kUnknown;
  return it->second.readonly ? BookieState::kReadOnly : BookieState::kWritable;
}

const std::string& Topology::Rack(const BookieId& id) const {
  static const std::string* const kDefault = new std::string(kDefaultRack);
  auto it = members_.find(id);
  return it == members_.end() ? *kDefault : it->second.rack;
}

const std::string& Topology::Region(const BookieId& id) const {
  static const std::string* const kDefault = new std::string(kDefaultRegion);
  auto it = members_.find(id);
  return it == members_.end() ? *kDefault : it->second.region;
}

const std::vector<std::string>& Topology::Groups(const BookieId& id) const {
  static const std::vector<std::string>* const kNone =
      new std::vector<std::string>();
  auto it = members_.find(id);
  return it == members_.end() ? *kNone : it->second.groups;
}

const BookieReport* Topology::Report(const BookieId& id) const {
  auto it = reports_.find(id);
  return it == reports_.end() ? nullptr : &it->second;
}

}  // namespace bk::placement
