// Weighted random selection and the two BookKeeper weightings: by free disk
// (diskWeightBasedPlacementEnabled) and by load (BP-65, PR #4246).
//
// Pure functions; randomness only through the caller's absl::BitGenRef.

#ifndef BK_PLACEMENT_WEIGHTED_SELECTION_H_
#define BK_PLACEMENT_WEIGHTED_SELECTION_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/types/span.h"
#include "placement/types.h"

namespace bk::placement {

// Bytes in the "MB" of BP-65's MB/s, as BookKeeper computes it (2^20).
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;

// Draws i in [0, weights.size()) with probability weights[i] / sum(weights).
// Non-positive and non-finite weights count as 0; when every weight is 0 the
// draw is uniform. REQUIRES: !weights.empty().
size_t PickWeighted(absl::Span<const double> weights, absl::BitGenRef gen);

// Disk weights, one per entry of `free_disk_bytes`, as BookKeeper's
// WeightedRandomSelectionImpl computes them:
//   - the weight is the free bytes; unknown (-1) counts as 0;
//   - a 0 weight counts as the smallest non-zero weight;
//   - if `max_multiple` > 0, no weight exceeds max_multiple x the median of
//     the weights (median taken before zeros are raised, as BookKeeper does;
//     if that median is 0 the median after raising is used instead, where
//     BookKeeper would starve every bookie);
//   - all weights 0: all 1 (uniform).
std::vector<double> DiskWeights(absl::Span<const int64_t> free_disk_bytes,
                                double max_multiple);

// BP-65's roulette weight for a bookie writing `write_bytes_per_second`:
// with MB/s = bytes / 2^20, max(100 - MB/s, 10), and 5 above 100 MB/s.
// Unknown (-1) counts as 0 MB/s.
double LoadRouletteWeight(double write_bytes_per_second);

// BP-65's choice among `candidates` (nullptr: no report held):
//   - candidates whose journal_io_util is unknown (-1) or above
//     `load_threshold` are left out (weight 0);
//   - if the rest are no more than low_load_ratio x candidates.size() (<=,
//     so exactly the ratio falls back), every candidate gets weight 1
//     (uniform over all candidates) and `fell_back` is set;
//   - otherwise each low-load bookie gets LoadRouletteWeight.
struct LoadWeighting {
  std::vector<double> weights;  // one per candidate
  bool fell_back = false;
};
LoadWeighting LoadWeights(absl::Span<const BookieInfo* const> candidates,
                          double load_threshold, double low_load_ratio);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_WEIGHTED_SELECTION_H_
