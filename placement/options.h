// PlacementOptions: every knob of the placement policy, with BookKeeper's
// configuration key where one exists and its default.

#ifndef BK_PLACEMENT_OPTIONS_H_
#define BK_PLACEMENT_OPTIONS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bk::placement {

// How bookies are weighted inside the rack-aware choice.
enum class Weighting {
  kNone,      // uniform
  kDisk,      // by free disk space (BookKeeper's diskWeightBasedPlacement)
  kLoad,      // by reported load (BP-65, apache/bookkeeper PR #4246)
  kAdaptive,  // ours: decayed reports, capped, power of d choices
};

// "none", "disk", "load", "adaptive".
absl::string_view WeightingName(Weighting weighting);
// Inverse of WeightingName; kInvalidArgument for any other string.
absl::StatusOr<Weighting> ParseWeighting(absl::string_view name);

// Constants of the adaptive rule; adaptive_weights.h states the rule.
struct AdaptiveOptions {
  // A report's influence halves every `report_half_life` of age: a report an
  // hour old weighs 2^-120 and the choice is uniform.
  absl::Duration report_half_life = absl::Seconds(30);
  // The client's own observations (adds in flight, add latency) decay faster:
  // they describe this client's recent traffic only.
  absl::Duration observation_half_life = absl::Seconds(5);
  // Write throughput (MiB/s) at which a bookie counts as saturated whatever
  // the rest of the cluster does.
  double saturation_mib_per_second = 200;
  // Relative load: a bookie writing this multiple of the mean reported
  // throughput (over the writable bookies) counts as full, one at the mean as
  // half full. This is what evens out the per-bookie throughput. <= 0: off.
  // Default off: measured over five bp65 seeds it did not lower the peak
  // spread and lost the latency tail (tools/sim/README.md); 2 is the value
  // measured.
  double full_multiple_of_mean = 0;
  // Journal IO utilisation (percent) from which a bookie counts as busy: load
  // rises from 0 here to 1 at 100% (a backlog, or a slowed device). Below
  // it, utilisation says nothing: an HDD journal is >= 50% busy in fsync at
  // any steady traffic and still answers in milliseconds. Default 0 (load =
  // util / 100, the rule that keeps the latency tail; see above); 80 is the
  // value measured with full_multiple_of_mean 2.
  double busy_util_percent = 0;
  // Smallest weight of a bookie relative to an idle one (a saturated bookie
  // with a fresh report), so that no bookie is starved entirely.
  double min_weight = 0.01;
  // No bookie's weight exceeds cap_multiple x the median weight.
  double cap_multiple = 2;
  // Candidates drawn by weight per choice; the one this client sees as least
  // busy wins (power of d choices). 1 disables the comparison.
  int choices = 2;
  // A later draw beats the first only if its cost is lower by more than
  // this fraction, so that nearly equal costs (a decayed client view) keep
  // the weighted draw rather than a strict, herd-prone comparison.
  double choice_margin = 0.2;
};

struct PlacementOptions {
  Weighting weighting = Weighting::kNone;

  // minNumRacksPerWriteQuorum: each write quorum spans at least
  // min(write_quorum, this) racks where the cluster has them.
  int min_num_racks_per_write_quorum = 2;
  // enforceMinNumRacksPerWriteQuorum: a shortfall is an error
  // (NotEnoughBookies) instead of an ensemble with adherence FAIL, and
  // bookies in the default rack are never chosen.
  bool enforce_min_num_racks_per_write_quorum = false;

  // bookieMaxWeightMultipleForWeightBasedPlacement: with disk weighting, no
  // bookie's probability exceeds this multiple of the median. <= 0: no cap.
  double bookie_max_weight_multiple = 3;

  // loadThreshold (BP-65): bookies whose journal IO utilisation (percent) is
  // above this are left out of load-weighted choices.
  double load_threshold = 70;
  // lowLoadBookieRatio (BP-65): if the bookies under the threshold are no
  // more than this fraction of the candidates, choose uniformly instead.
  double low_load_bookie_ratio = 0.5;

  // readReorderThresholdPendingRequests: > 0 moves the replica with the
  // fewest pending requests to the front of a read when the first has at
  // least this many more. 0 disables.
  int64_t read_reorder_threshold_pending_requests = 0;

  // Attempts at a rack-covering ensemble before giving up (the greedy draw
  // can dead-end where a covering ensemble exists). Not a BookKeeper key.
  int max_placement_attempts = 8;

  AdaptiveOptions adaptive;
};

// kInvalidArgument naming the first field out of range: min racks >= 1,
// load_threshold in [0, 100], low_load_bookie_ratio in [0, 1], read reorder
// threshold >= 0, placement attempts in [1, 1000], half-lives and saturation
// > 0, min_weight in (0, 1], cap_multiple >= 1 (or <= 0: no cap), choices in
// [1, 8], choice_margin in [0, 1), and every number finite.
absl::Status ValidatePlacementOptions(const PlacementOptions& options);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_OPTIONS_H_
