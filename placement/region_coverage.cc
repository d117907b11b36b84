#include "placement/region_coverage.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "placement/topology.h"

namespace bk::placement {
namespace {

// Members per region and distinct racks per region of one write quorum.
struct QuorumTally {
  absl::flat_hash_map<std::string, int> members;
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> racks;

  void Add(const std::string& region, const std::string& rack) {
    ++members[region];
    racks[region].insert(rack);
  }
};

}  // namespace

bool MeetsDurability(std::vector<int> counts, int min_regions, int ack_quorum) {
  if (min_regions <= 1) return true;
  std::sort(counts.begin(), counts.end(), std::greater<int>());
  int fullest = 0;
  for (int i = 0; i < min_regions - 1 && i < static_cast<int>(counts.size());
       ++i) {
    fullest += counts[i];
  }
  return fullest <= ack_quorum - 1;
}

RegionCoverage::RegionCoverage(
    const RegionRule& rule,
    absl::flat_hash_map<std::string, int> racks_per_region)
    : rule_(rule),
      racks_per_region_(std::move(racks_per_region)),
      regions_(rule.ensemble_size),
      racks_(rule.ensemble_size) {}

bool RegionCoverage::QuorumAllows(int start, int slot,
                                  const std::string& region,
                                  const std::string& rack) const {
  QuorumTally tally;
  tally.Add(region, rack);
  int empty = 0;
  for (int k = 0; k < rule_.write_quorum; ++k) {
    const int member = (start + k) % rule_.ensemble_size;
    if (member == slot) continue;
    if (regions_[member].empty()) {
      ++empty;
    } else {
      tally.Add(regions_[member], racks_[member]);
    }
  }
  // Racks inside the candidate's region, as they stand now.
  auto it = racks_per_region_.find(region);
  const int region_racks = it == racks_per_region_.end() ? 1 : it->second;
  const int m_region = std::max(1, std::min(rule_.min_racks, region_racks));
  const int n = tally.members[region];
  if (static_cast<int>(tally.racks[region].size()) < std::min(n, m_region)) {
    return false;
  }
  // Durability: spread the empty slots, one at a time, to the emptiest of
  // the available regions; that minimises the fullest regions' sum.
  std::vector<int> counts;
  for (const auto& [r, c] : tally.members) counts.push_back(c);
  const int regions =
      std::max<int>(racks_per_region_.size(), tally.members.size());
  counts.resize(std::max<size_t>(counts.size(), regions), 0);
  for (int e = 0; e < empty; ++e) {
    *std::min_element(counts.begin(), counts.end()) += 1;
  }
  return MeetsDurability(counts, rule_.min_regions, rule_.ack_quorum);
}

bool RegionCoverage::CanPlace(int slot, const std::string& region,
                              const std::string& rack) const {
  const int e = rule_.ensemble_size;
  // With E == WQ every "quorum through slot" is the same one.
  const int quorums = e == rule_.write_quorum ? 1 : rule_.write_quorum;
  for (int back = 0; back < quorums; ++back) {
    const int start = (slot - back + e) % e;
    if (!QuorumAllows(start, slot, region, rack)) return false;
  }
  return true;
}

void RegionCoverage::Place(int slot, const std::string& region,
                           const std::string& rack) {
  regions_[slot] = region;
  racks_[slot] = rack;
  ++count_[region];
}

int RegionCoverage::Count(const std::string& region) const {
  auto it = count_.find(region);
  return it == count_.end() ? 0 : it->second;
}

Adherence JudgeRegionAdherence(absl::Span<const std::string> regions,
                               absl::Span<const std::string> racks,
                               const RegionRule& rule, bool enforce) {
  const int n = static_cast<int>(regions.size());
  if (n == 0 || racks.size() != regions.size()) return Adherence::kFail;
  const int wq = std::min(rule.write_quorum, n);
  const int m = std::max(1, std::min(rule.min_racks, wq));
  for (int start = 0; start < n; ++start) {
    QuorumTally tally;
    for (int k = 0; k < wq; ++k) {
      const int slot = (start + k) % n;
      if (enforce && racks[slot] == kDefaultRack) return Adherence::kFail;
      tally.Add(regions[slot], racks[slot]);
    }
    std::vector<int> counts;
    for (const auto& [region, count] : tally.members) {
      counts.push_back(count);
      if (static_cast<int>(tally.racks[region].size()) < std::min(count, m)) {
        return Adherence::kFail;
      }
    }
    if (!MeetsDurability(counts, rule.min_regions, rule.ack_quorum)) {
      return Adherence::kFail;
    }
  }
  return Adherence::kMeetsStrict;
}

}  // namespace bk::placement
