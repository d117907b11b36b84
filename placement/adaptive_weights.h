// AdaptiveWeigher: our load-aware weighting, built to beat BP-65 where BP-65
// is weakest -- many independent clients acting on the same reports -- and
// to even out the per-bookie journal throughput, BP-65's balance figure.
//
// The rule, for a choice among candidates at time `now`:
//
//  1. Reported load (defaults: full_multiple_of_mean 0 = relative term off,
//     busy_util_percent 0, so load = max(util / 100, MiB/s / 200): the
//     latency-first rule; the relative form below was measured and lost, see
//     tools/sim/README.md). From a bookie's latest report, with mean = the mean
//     write MiB/s reported by the writable bookies,
//       load = clamp(max(busy, MiB/s / saturation_mib_per_second,
//                        MiB/s / (full_multiple_of_mean x mean)), 0, 1),
//       busy = max(0, (journal_io_util - busy_util_percent)
//                     / (100 - busy_util_percent)),
//     over the figures that are known; a bookie with no report, or with
//     neither figure known, has influence 0 below. The relative term is the
//     one that balances: a bookie at the mean is half loaded, one at twice
//     the mean (2) full, an idle one empty, whatever its device. Utilisation
//     counts only above busy_util_percent (80): an HDD journal spends >= 50%
//     of its time in fsync at any steady traffic yet answers in a few ms, so
//     low and middling utilisation is no reason to avoid it (the rule before
//     this one used util / 100 and so pushed traffic off every HDD onto the
//     SSDs, widening the throughput spread); 100% means a backlog (a
//     saturated or slowed device), and that must be avoided whatever its
//     throughput, which a slowed device's is not.
//  2. Decay with age. influence = 2^(-age / report_half_life), age = now -
//     received_at (30 s half-life: 10 s old -> 0.79, 1 min -> 0.25, 1 h ->
//     2^-120). weight = max(min_weight, 1 - influence x load).
//     An old report tends to weight 1, i.e. uniform -- never to argmin, which
//     is what herds clients onto the bookie that *was* quiet.
//     A fresh report of a saturated bookie gives min_weight (0.01): about a
//     hundredth of an idle bookie's share, but not zero. (0.05 let one new
//     ledger in ~40 land on a bookie whose journal was known to be slow;
//     with ledgers taking thousands of adds each, that set the p99.)
//  3. Cap. No weight exceeds cap_multiple (2) x the median weight over the
//     writable bookies, so a quiet bookie among busy ones draws at most twice
//     a typical share however quiet it looks: every client reading the same
//     report cannot pile onto it.
//  4. Power of d choices on the client's own view. d (2) candidates are drawn
//     by weight (with replacement); the winner is the one whose predicted
//     cost of one more add *as this client sees it* is lowest:
//       cost = f x (inflight + 1) x latency + (1 - f) x median_cost,
//       f = 2^(-(now - observed_at) / observation_half_life) (5 s),
//     latency being the client's recent add latency to the bookie and
//     median_cost the median of (inflight + 1) x latency over the bookies it
//     has observed; a bookie it never observed costs median_cost (neutral:
//     not cheaper than a typical one, so an unknown -- possibly slow --
//     bookie does not win the comparison by default). A later draw wins only if
//     its cost is lower by more than choice_margin (20%); near ties (no
//     observations, or decayed ones) keep the first draw, so without a fresh
//     client view the choice is exactly the weights of 1-3. The comparison uses
//     only the client's private, fresh view -- never the shared report --
//     because comparing on shared stale data is what makes power-of-d herd.
//
// Constants live in AdaptiveOptions (options.h). Not thread-safe.

#ifndef BK_PLACEMENT_ADAPTIVE_WEIGHTS_H_
#define BK_PLACEMENT_ADAPTIVE_WEIGHTS_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "placement/options.h"
#include "placement/topology.h"
#include "placement/types.h"

namespace bk::placement {

// The report-derived part of the rule (steps 1-2) for one report; 1 for none.
// `mean_mib_per_second` is the population's mean reported write MiB/s (<= 0:
// unknown, the relative term is left out).
double AdaptiveReportWeight(const BookieReport* report, absl::Time now,
                            double mean_mib_per_second,
                            const AdaptiveOptions& options);

// The mean write MiB/s over the bookies of `population` that report it; -1
// when none does.
double MeanReportedMiBPerSecond(absl::Span<const BookieId> population,
                                const Topology& topology);

class AdaptiveWeigher {
 public:
  explicit AdaptiveWeigher(const AdaptiveOptions& options);

  // The client's own view of `id` at `at`: adds in flight and recent add
  // latency. Replaces the previous observation of `id` unless older.
  void Observe(const BookieId& id, int64_t inflight_adds,
               absl::Duration add_latency, absl::Time at);

  // Drops observations of bookies no longer in `topology`.
  void Retain(const Topology& topology);

  // Steps 1-3 for `bookies`, capped against the median over `population`
  // (the writable bookies). One weight per entry of `bookies`.
  std::vector<double> Weights(absl::Span<const BookieId> bookies,
                              absl::Span<const BookieId> population,
                              const Topology& topology, absl::Time now) const;

  // Step 4: draws d candidates from `weights` and returns the index (into
  // `bookies`) of the one with the lowest cost. REQUIRES: sizes equal,
  // non-empty; the pointers stay valid for the call.
  size_t Choose(absl::Span<const BookieId* const> bookies,
                absl::Span<const double> weights, absl::Time now,
                absl::BitGenRef gen) const;

 private:
  struct Observation {
    int64_t inflight_adds = 0;
    absl::Duration add_latency;
    absl::Time at;
  };
  // (inflight + 1) x latency: the wait one more add of ours would see.
  static double OwnCost(const Observation& obs) {
    return static_cast<double>(obs.inflight_adds + 1) *
           absl::ToDoubleSeconds(obs.add_latency);
  }
  double Cost(const BookieId& id, absl::Time now, double median_cost) const;

  const AdaptiveOptions options_;  // constant after construction
  // Not thread-safe: touched only by the owner's (serialised) calls.
  absl::flat_hash_map<BookieId, Observation> observations_;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_ADAPTIVE_WEIGHTS_H_
