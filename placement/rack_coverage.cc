#include "placement/rack_coverage.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "placement/topology.h"

namespace bk::placement {

RackCoverage::RackCoverage(int ensemble_size, int write_quorum, int min_racks)
    : ensemble_size_(ensemble_size),
      write_quorum_(write_quorum),
      min_racks_(min_racks),
      racks_(ensemble_size),
      filled_(ensemble_size, false) {}

bool RackCoverage::CanPlace(int slot, const std::string& rack) const {
  if (min_racks_ <= 1) return true;
  absl::flat_hash_set<absl::string_view> seen;
  for (int back = 0; back < write_quorum_; ++back) {
    // The write quorum starting `back` slots before `slot` contains it.
    const int start = (slot - back + ensemble_size_) % ensemble_size_;
    seen.clear();
    seen.insert(rack);
    int empty_after = 0;
    for (int k = 0; k < write_quorum_; ++k) {
      const int member = (start + k) % ensemble_size_;
      if (member == slot) continue;
      if (filled_[member]) {
        seen.insert(racks_[member]);
      } else {
        ++empty_after;
      }
    }
    if (static_cast<int>(seen.size()) + empty_after < min_racks_) return false;
  }
  return true;
}

void RackCoverage::Place(int slot, const std::string& rack) {
  racks_[slot] = rack;
  filled_[slot] = true;
}

int RequiredRacks(int write_quorum, int min_num_racks_per_write_quorum) {
  return std::max(1, std::min(write_quorum, min_num_racks_per_write_quorum));
}

Adherence JudgeRackAdherence(absl::Span<const std::string> racks,
                             int write_quorum,
                             int min_num_racks_per_write_quorum, bool enforce) {
  const int n = static_cast<int>(racks.size());
  if (n == 0) return Adherence::kFail;
  const int m = RequiredRacks(write_quorum, min_num_racks_per_write_quorum);
  absl::flat_hash_set<absl::string_view> seen;
  for (int start = 0; start < n; ++start) {
    seen.clear();
    for (int k = 0; k < write_quorum; ++k) seen.insert(racks[(start + k) % n]);
    if (static_cast<int>(seen.size()) < m) return Adherence::kFail;
    if (enforce && seen.contains(kDefaultRack)) return Adherence::kFail;
  }
  return Adherence::kMeetsStrict;
}

}  // namespace bk::placement
