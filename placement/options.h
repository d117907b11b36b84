// PlacementOptions: every knob of the placement policy, with BookKeeper's
// configuration key where one exists and its default.

#ifndef BK_PLACEMENT_OPTIONS_H_
#define BK_PLACEMENT_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

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
  kAdaptive,  // ours: rate-aware, load estimate corrected by own placements
};

// "none", "disk", "load", "adaptive".
absl::string_view WeightingName(Weighting weighting);
// Inverse of WeightingName; kInvalidArgument for any other string.
absl::StatusOr<Weighting> ParseWeighting(absl::string_view name);

// Constants of the adaptive rule; adaptive_chooser.h states the rule and
// tools/sim/README.md shows how each was measured.
struct AdaptiveOptions {
  // The span of writes a bookie's report describes (the bookie monitor's
  // samples x period). A placement this client made counts in its estimate
  // of the bookie in full until a later report, and fades out over this
  // window as reports cover it (load_estimate.h).
  absl::Duration report_window = absl::Seconds(3);
  // Reports older than this say nothing: the bookie's reported load is then
  // the median of the known ones.
  absl::Duration max_report_age = absl::Minutes(5);
  // A report is brought forward to now by the drift learned from successive
  // reports (load_drift.h), for at most this age; learned only from reports
  // at most this far apart. 0: off.
  absl::Duration forecast_max_age = absl::Minutes(2);
  // Bookies whose journal device reports at least this utilisation (a
  // backlog: saturated or slowed) are left out while any other is eligible.
  double avoid_util_percent = 90;
  // A slot (the MiB/s one replica of the ledger receives, from the rate
  // hint) above big_slot_multiple x the mean estimated bookie load is big.
  double big_slot_multiple = 1;
  // A big slot goes only to a bookie whose journal device reports at most
  // this utilisation (headroom for it), if there is one ...
  double big_slot_util_percent = 50;
  // ... drawn uniformly among the big_slot_choices least loaded of those
  // (and at most one in 8 of them: a small cluster's least loaded).
  int big_slot_choices = 8;
  // Other slots leave the reserve_for_big least loaded bookies to big ones
  // (at most one in 16 of the candidates), while any of the remembered slot
  // rates (rate_memory) is big.
  int reserve_for_big = 8;
  // Other slots choose among bookies estimated at most this multiple of the
  // mean load (when any is). <= 0: no limit.
  double small_slot_max_multiple = 1.5;
  // With a rate: the slot at quantile q of recent slot rates goes to the
  // bookie ranked (1 - q) from the least loaded, +- rank_spread x the
  // candidates, reflected at both ends.
  double rank_spread = 0.05;
  // How many recent slot rates the quantile is taken over.
  int rate_memory = 512;
  // Rank matching only while the remembered slot rates spread at least this
  // much (their coefficient of variation); below it the rates say nothing
  // about where a slot should go (topics of nearly equal rate would each
  // keep a fixed target rank and pile up there), and the rankless tilt
  // draws instead. 0: always rank-match.
  double rank_match_min_spread = 0.25;
  // With a rate, and every candidate's report at most this old and at most
  // this long after the one before it (polled that often): the least
  // loaded candidate (after step 1's and, for a big slot, step 2's
  // filters) instead of rank matching. A report younger than a poll of a
  // second or two, with this client's own placements and closes added,
  // is close to exact, and then the least loaded is the best choice; the
  // rank spread is for reports that many placements have passed since.
  // 0: never.
  absl::Duration least_loaded_report_age = absl::Seconds(2);
  // Clients of one cluster tell each other of every ledger they create
  // (its ensemble and rate hint) the moment they place it, through the
  // metadata store (client/internal/placement_feed.h), and each counts
  // the others' like its own placements until reports show them. Only a
  // client that polls every bookie at least every least_loaded_report_age
  // shares (SharesNewLedgers): on slower polls every client reads the
  // same stale report plus the same shared placements, and they herd
  // (bp65.yaml, 30 s reports: herd index 1.34-1.47 against 1.06 without).
  bool share_new_ledgers = true;
  // Without a rate: weights fall linearly with the load rank, from
  // 1 + rankless_tilt for the least loaded to 1 - rankless_tilt.
  double rankless_tilt = 0.5;
  // The client's own view: a bookie whose add latency, observed within
  // observation_max_age, exceeds slow_latency_multiple x the median of its
  // fresh observations is left out like a busy one. <= 0: off.
  double slow_latency_multiple = 8;
  absl::Duration observation_max_age = absl::Seconds(10);
  // Probe on placement (RackAwarePolicy::ProbeCandidates): before choosing,
  // the client asks probe_candidates bookies per slot for a fresh report
  // (GetBookieInfo) and the choice ranks the bookies that answered by their
  // fresh figures (when any of them is eligible). 0: no probing.
  int probe_candidates = 0;
  // Which bookies to probe, by the client's (stale) estimate of the pool.
  enum class ProbePick {
    kLeast,   // the least loaded
    kRandom,  // uniformly at random
    kMixed,   // half the least loaded, half at random from the rest
    kRule,    // drawn by the rule itself (this weighting's choice), without
              // repeats: the bookies the rule would likely have chosen
  };
  ProbePick probe_pick = ProbePick::kRule;
  // Among the bookies that answered: true, the least loaded by the fresh
  // estimate (after the rule's saturation and big-slot headroom filters;
  // power of d choices); false, the rule over them.
  bool probe_choose_least = true;
  // A bookie whose probe answer gives an add latency (p99) above this
  // multiple of the median the usable reports give is not chosen (a
  // slowed journal writes less and would look least loaded). <= 0: off.
  double probe_slow_latency_multiple = 16;
  // Nor is one whose answer gives an add latency (p99) above this multiple
  // of its own floor (latency_floor.h: the lowest this client saw it
  // report, rising over latency_floor_memory while reports stay above it):
  // a slowed journal sits at its slowdown x its floor even when idle, a
  // healthy one reaches 4 x only near saturation. <= 0: off.
  double probe_slow_floor_multiple = 4;
  absl::Duration latency_floor_memory = absl::Minutes(30);
};

// "least", "random", "mixed", "rule".
absl::string_view ProbePickName(AdaptiveOptions::ProbePick pick);
// Inverse of ProbePickName; kInvalidArgument for any other string.
absl::StatusOr<AdaptiveOptions::ProbePick> ParseProbePick(
    absl::string_view name);

// BookKeeper's RegionAwareEnsemblePlacementPolicy, as a mode of the policy
// (region_coverage.h states the rule). Off: the rack-aware policy exactly.
struct RegionOptions {
  // ensemblePlacementPolicy = region-aware: ensembles spread over the
  // regions ("/region/rack") first, then over racks inside each region.
  bool enabled = false;
  // reppMinimumRegionsForDurability: every ack quorum of every write quorum
  // spans at least this many regions, so losing this many minus one whole
  // regions loses no acknowledged entry. <= 1: no durability rule (the
  // spread over regions is then a best effort).
  int min_regions_for_durability = 2;
  // reppEnableDurabilityEnforcementInReplace: a replacement must keep the
  // durability rule (NotEnoughBookies otherwise); false lets it fall back
  // to any region.
  bool enforce_durability_in_replace = true;
  // reppRegionsToWrite (BookKeeper separates them with ';'): the regions
  // ensembles may use. Empty: every region bookies sit in.
  std::vector<std::string> regions_to_write;
  // The region the client runs in (BookKeeper resolves its own host's
  // location). Non-empty: the first member of a new ensemble -- the first
  // replica of write quorum 0 -- is drawn from it when the rules allow.
  std::string local_region;
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
  RegionOptions region;
};

// kInvalidArgument naming the first field out of range: min racks >= 1,
// load_threshold in [0, 100], low_load_bookie_ratio in [0, 1], read reorder
// threshold >= 0, placement attempts in [1, 1000], the adaptive constants as
// options.cc checks them (utilisations in [0, 100], report window and
// forecast age >= 0, ages
// > 0, big_slot_multiple > 0, choices >= 1, reserve >= 0, rank_spread in
// [0, 1], rankless_tilt in [0, 1), rate_memory in [8, 1e6],
// probe_candidates in [0, 1000], latency_floor_memory > 0), region
// durability in [0, 100], region names non-empty without '/' or blanks, and
// every number finite.
absl::Status ValidatePlacementOptions(const PlacementOptions& options);

// True when a client placing with `options` shares its new ledgers with
// the other clients and counts theirs (AdaptiveOptions::share_new_ledgers):
// adaptive weighting, share_new_ledgers, and a poll of every bookie at
// least every least_loaded_report_age (its longest period,
// poll_interval x (1 + poll_jitter), within it).
bool SharesNewLedgers(const PlacementOptions& options,
                      absl::Duration poll_interval, double poll_jitter);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_OPTIONS_H_
