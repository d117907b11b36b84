// The rack rule of BookKeeper's rack-aware policy, for an ensemble of E
// slots striped with write quorum WQ: write quorum q covers slots q, q+1,
// ..., q+WQ-1 (mod E), and each must span at least
//   m = min(WQ, minNumRacksPerWriteQuorum)
// distinct racks.

#ifndef BK_PLACEMENT_RACK_COVERAGE_H_
#define BK_PLACEMENT_RACK_COVERAGE_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "placement/types.h"

namespace bk::placement {

// Fills an ensemble slot by slot while keeping every write quorum able to
// reach m racks: placing rack r in slot s is allowed only if, for each write
// quorum through s, (distinct racks among its filled slots and r) + (its
// slots still empty after s) >= m. This is BookKeeper's
// RRTopologyAwareCoverageEnsemble check, made exact for any fill order.
class RackCoverage {
 public:
  // REQUIRES: 1 <= write_quorum <= ensemble_size; min_racks >= 1.
  RackCoverage(int ensemble_size, int write_quorum, int min_racks);

  // REQUIRES: slot in [0, ensemble_size) and empty.
  bool CanPlace(int slot, const std::string& rack) const;
  // Fills `slot` with `rack` (whether or not CanPlace allowed it).
  void Place(int slot, const std::string& rack);

 private:
  const int ensemble_size_;
  const int write_quorum_;
  const int min_racks_;
  std::vector<std::string> racks_;  // per slot; empty: not filled yet
  std::vector<bool> filled_;
};

// m for this ensemble: min(write_quorum, min_num_racks_per_write_quorum),
// at least 1.
int RequiredRacks(int write_quorum, int min_num_racks_per_write_quorum);

// BookKeeper's isEnsembleAdheringToPlacementPolicy for the racks of an
// ensemble in slot order: kFail if some write quorum spans fewer than m
// racks, or (when `enforce`) holds a bookie of the default rack; else
// kMeetsStrict.
Adherence JudgeRackAdherence(absl::Span<const std::string> racks,
                             int write_quorum,
                             int min_num_racks_per_write_quorum, bool enforce);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_RACK_COVERAGE_H_
