// AdaptiveChooser: the adaptive weighting's choice of one bookie for one slot
// of a new ledger (or of a replacement), among the bookies the rack rule
// allows. A slot is what one replica of the ledger receives:
// rate x write_quorum / ensemble_size, from the ledger's rate hint.
//
// The rule, per choice (constants in AdaptiveOptions, options.h):
//
//  0. Estimate. Each bookie's load is its last report's write MiB/s,
//     brought forward by the drift learned from successive reports of
//     bookies at that load (load_drift.h; forecast_max_age 0: off), plus
//     this client's own placements, less its own closed ledgers, that the
//     reports do not show yet (load_estimate.h); a bookie without a usable
//     report counts the median.
//  1. Leave out the saturated: a report of journal utilisation at or above
//     avoid_util_percent (90), or this client's own fresh add latency above
//     slow_latency_multiple (8) x the median it sees. If that leaves no one,
//     nobody is left out.
//  2. Big slot (above big_slot_multiple x the mean estimate): only bookies
//     whose journal reports at most big_slot_util_percent (50) utilisation,
//     if any; uniformly among the big_slot_choices (8) least loaded of them
//     (at most one in 8 of them: with fewer than 16, the least loaded).
//     Uniform, not the least loaded: two clients reading the same stale
//     report must not both put a big slot on the same bookie.
//  3. Other slots, with a rate: bookies estimated above
//     small_slot_max_multiple (1.5) x the mean are left out (if any remain),
//     and so are the reserve_for_big (8, at most 1 in 16 candidates) least
//     loaded (kept for big slots) while any of the remembered slot rates
//     (below) is big. Then rank matching: with q the slot
//     rate's quantile among the last rate_memory (512) slot rates this
//     client placed (ties spread uniformly), the choice is the
//     bookie ranked (1 - q) from the least loaded, +- rank_spread (5 %) of
//     the candidates, reflected at both ends: heavy slots fill the least
//     loaded, light ones the fuller, and over uniform quantiles every rank
//     is drawn equally often, so many clients reading the same report
//     spread rather than herd.
//     But when every candidate's report is at most least_loaded_report_age
//     (2 s) old and came at most that long after the one before it (the
//     client polls that often): the least loaded, after ReportsSlow's
//     filter, step 1 without its utilisation test (on reports this fresh a
//     slow add latency says saturated; a group-committing journal reads
//     90 % busy at a fraction of the bytes it can take) and (big slot)
//     step 2's headroom filter. Fresh reports
//     with this client's own placements and closes (OnClosed) are close to
//     exact, and the least loaded then spreads best (tools/sim/README.md, "The
//     online limit").
//     Rank matching needs slot rates that differ: while the remembered
//     ones spread less than rank_match_min_spread (coefficient of
//     variation 0.25), a slot with a rate is drawn as in 4 (after 3's
//     filters): topics of nearly equal rate would each keep one target
//     rank and pile up on the few bookies there.
//  4. Rate unknown: the same filter as 3 without the reserve, then a draw
//     with weights falling linearly with the load rank, from 1 +
//     rankless_tilt (0.5) for the least loaded to 1 - rankless_tilt.
//
// Probe on placement (options probe_candidates > 0; RackAwarePolicy
// ::ProbeCandidates / OnProbeReport): the client asks D bookies per slot,
// drawn by steps 0-4 on its stale view, for a fresh report; a slot with an
// answered bookie eligible chooses only among those, leaving out any whose
// fresh report gives an add latency above probe_slow_latency_multiple (16)
// x the median reported or above probe_slow_floor_multiple (4) x the
// bookie's own floor (latency_floor.h) (ReportsSlow), then by this rule
// over them or, with
// probe_choose_least, the least loaded after steps 1-2's filters
// (ChooseLeast; on fresh reports step 1 without its utilisation test, as
// above).
//
// Why these steps, and what each is worth, is measured in tools/sim/README.md.
//
// Not thread-safe; owned by one policy.

#ifndef BK_PLACEMENT_ADAPTIVE_CHOOSER_H_
#define BK_PLACEMENT_ADAPTIVE_CHOOSER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "placement/latency_floor.h"
#include "placement/load_drift.h"
#include "placement/load_estimate.h"
#include "placement/options.h"
#include "placement/topology.h"
#include "placement/types.h"

namespace bk::placement {

class AdaptiveChooser {
 public:
  // REQUIRES: ValidatePlacementOptions accepts `options`.
  explicit AdaptiveChooser(const AdaptiveOptions& options);

  // Bookie `id`'s new report `info` arrives at `received_at`; `previous` is
  // its report it replaces (null for the first). Teaches the drift and the
  // bookie's latency floor.
  void OnReport(const BookieId& id, const BookieReport* previous,
                const BookieInfo& info, absl::Time received_at);
  // The client's own view of `id` at `at`: its add latency to it.
  void Observe(const BookieId& id, absl::Duration add_latency, absl::Time at);
  // Forgets bookies no longer in `topology` and placements reports cover.
  void Retain(const Topology& topology, absl::Time now);

  // The estimated loads of the writable bookies, prepared once per call.
  struct View {
    absl::flat_hash_map<BookieId, double> load;  // MiB/s
    double mean = 0;                             // over the writable bookies
    // Median of the add latencies (p99) the usable reports give; 0: none.
    double median_latency_ms = 0;
  };
  View Prepare(const Topology& topology, absl::Time now) const;

  // Chooses one of `eligible` (non-empty) for a slot of `slot_mib` MiB/s
  // (< 0: unknown). Returns an index into `eligible`.
  size_t Choose(absl::Span<const BookieId* const> eligible, double slot_mib,
                const View& view, const Topology& topology, absl::Time now,
                absl::BitGenRef gen) const;

  // Probe on placement: whether `id`'s usable report gives an add latency
  // (p99) above probe_slow_latency_multiple x the view's median of them, or
  // above probe_slow_floor_multiple x the bookie's own floor: a journal
  // slowed down writes less, so its write rate alone would make it look
  // least loaded.
  bool ReportsSlow(const BookieId& id, const View& view,
                   const Topology& topology, absl::Time now) const;

  // Probe on placement: the least loaded of `eligible` (non-empty) by
  // `view`, after step 1 (on fresh reports, as in Choose, without its
  // utilisation test) and, for a big slot, step 2's headroom filter; ties
  // drawn uniformly. Returns an index into `eligible`.
  size_t ChooseLeast(absl::Span<const BookieId* const> eligible,
                     double slot_mib, const View& view,
                     const Topology& topology, absl::Time now,
                     absl::BitGenRef gen) const;

  // Why Choose, asked now for a slot of `slot_mib` MiB/s (< 0: unknown)
  // among `eligible`, would leave `id` out before comparing loads, or ""
  // when it would not: on fresh reports a report giving a slow add latency
  // (ReportsSlow), on older ones a journal reading >= avoid_util_percent
  // busy; either way this client's own adds to it answering
  // slow_latency_multiple x slower than the median, and for a big slot a
  // journal above big_slot_util_percent busy. A read-out for tools
  // (adaptive_left_out.cc); Choose still takes a bookie left out when no
  // other remains, and the rank rule's draws (which bookies it skips for
  // their load) are not reasons given here.
  std::string LeftOutReason(const BookieId& id,
                            absl::Span<const BookieId* const> eligible,
                            double slot_mib, const View& view,
                            const Topology& topology, absl::Time now) const;

  // A slot of `slot_mib` was placed on each of `bookies`: it counts in their
  // estimates until reports show it, and its rate joins the remembered ones.
  void OnPlaced(absl::Span<const BookieId> bookies, double slot_mib,
                absl::Time at);
  // A ledger with slots of `slot_mib` on each of `bookies` was closed (or
  // its ensemble left them): the estimates drop it until reports show it.
  // Unknown rates (< 0) change nothing.
  void OnClosed(absl::Span<const BookieId> bookies, double slot_mib,
                absl::Time at);

  // Fraction of remembered slot rates below `slot_mib`, plus `u` (in
  // [0, 1)) times the fraction equal to it: ties spread uniformly, so equal
  // slots are not all sent to one rank. `u` itself while fewer than 8 rates
  // are remembered.
  double Quantile(double slot_mib, double u) const;

 private:
  struct Observation {
    absl::Duration add_latency;
    absl::Time at;
  };
  // Median of this client's fresh add latencies (s); 0: none, or the
  // slow_latency_multiple test is off.
  double ObservedMedianS(absl::Time now) const;
  // This client's fresh add latency to `id` exceeds slow_latency_multiple x
  // `median_s` (> 0).
  bool SeenSlow(const BookieId& id, double median_s, absl::Time now) const;
  // Indices into `eligible` that step 1 keeps; without `by_util`, step 1
  // does not ask journal utilisation (only this client's own latencies).
  std::vector<size_t> Unsaturated(absl::Span<const BookieId* const> eligible,
                                  const Topology& topology, absl::Time now,
                                  bool by_util) const;
  // ChooseLeast, with step 1 as Unsaturated(by_util).
  size_t LeastLoaded(absl::Span<const BookieId* const> eligible,
                     double slot_mib, const View& view,
                     const Topology& topology, absl::Time now,
                     absl::BitGenRef gen, bool by_util) const;
  // Whether every one of `eligible` has a usable report at most
  // least_loaded_report_age old, and came at most that long after the one
  // before it (never, when that option is 0).
  bool FreshReports(absl::Span<const BookieId* const> eligible,
                    const Topology& topology, absl::Time now) const;
  // Whether the remembered slot rates spread enough for rank matching
  // (rank_match_min_spread; true while fewer than 8 are remembered).
  bool RatesSpread() const;
  // Whether any remembered slot rate is big against `mean`.
  bool RemembersBig(double mean) const;
  // Journal utilisation of a usable report, or -1.
  double Util(const BookieId& id, const Topology& topology,
              absl::Time now) const;

  const AdaptiveOptions options_;
  LoadEstimate estimate_;
  LoadDrift drift_;
  LatencyFloor floor_;
  absl::flat_hash_map<BookieId, Observation> observations_;
  // Time between the last two reports of each bookie (its poll interval).
  absl::flat_hash_map<BookieId, absl::Duration> report_gaps_;
  std::vector<double> rates_;  // ring of remembered slot rates
  size_t next_rate_ = 0;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_ADAPTIVE_CHOOSER_H_
