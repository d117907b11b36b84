// The region rule of BookKeeper's RegionAwareEnsemblePlacementPolicy, for an
// ensemble of E slots striped with write quorum WQ and ack quorum AQ (write
// quorum q covers slots q, ..., q+WQ-1 mod E):
//
//  - durability: with d = min_regions_for_durability >= 2, no d-1 regions
//    together hold AQ or more members of any write quorum. Every ack quorum
//    then spans at least d regions, so an entry acknowledged before d-1
//    whole regions are lost keeps a copy. (BookKeeper's coverage check for
//    regions, stated as a sum: the d-1 fullest regions hold <= AQ-1.)
//  - racks inside regions: in every write quorum, the members one region
//    holds span at least min(their number, m) racks, m =
//    minNumRacksPerWriteQuorum, as BookKeeper runs a rack-aware policy in
//    each region on that region's share of the write quorum.

#ifndef BK_PLACEMENT_REGION_COVERAGE_H_
#define BK_PLACEMENT_REGION_COVERAGE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "placement/types.h"

namespace bk::placement {

struct RegionRule {
  int ensemble_size = 1;
  int write_quorum = 1;
  int ack_quorum = 1;
  int min_regions = 2;  // d; <= 1: no durability rule
  int min_racks = 2;    // m, per region
};

// True when the counts of one write quorum's members per region (any
// order; zeros allowed) meet the durability rule.
bool MeetsDurability(std::vector<int> counts_per_region, int min_regions,
                     int ack_quorum);

// Fills an ensemble slot by slot while keeping every write quorum able to
// meet the rule. Durability is exact for any fill order: a placement is
// allowed only if the quorum's empty slots can still be spread over the
// `available_regions` regions of the pool so that the rule holds. Racks
// are checked as the slots fill: a region's members in a write quorum must
// span min(their number, m_R) racks after every placement, where m_R =
// min(m, racks of that region in the pool), so a region with one rack can
// still take one member per write quorum.
class RegionCoverage {
 public:
  // `racks_per_region`: distinct racks the pool offers in each region; its
  // size is the number of regions available.
  RegionCoverage(const RegionRule& rule,
                 absl::flat_hash_map<std::string, int> racks_per_region);

  // REQUIRES: slot in [0, ensemble_size) and empty.
  bool CanPlace(int slot, const std::string& region,
                const std::string& rack) const;
  void Place(int slot, const std::string& region, const std::string& rack);
  // Members placed so far in `region`.
  int Count(const std::string& region) const;

 private:
  bool QuorumAllows(int start, int slot, const std::string& region,
                    const std::string& rack) const;

  const RegionRule rule_;
  const absl::flat_hash_map<std::string, int> racks_per_region_;
  std::vector<std::string> regions_;  // per slot; empty: not filled
  std::vector<std::string> racks_;
  absl::flat_hash_map<std::string, int> count_;
};

// The region adherence of an ensemble (regions and racks per slot): kFail
// if a write quorum breaks durability or the rack rule inside a region (m
// capped at WQ), or when `enforce` holds a bookie of the default rack; else
// kMeetsStrict.
Adherence JudgeRegionAdherence(absl::Span<const std::string> regions,
                               absl::Span<const std::string> racks,
                               const RegionRule& rule, bool enforce);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_REGION_COVERAGE_H_
