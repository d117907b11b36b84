// RackAwarePolicy: BookKeeper's rack-aware ensemble placement with a
// selectable weighting (none, disk, load, adaptive) inside each choice.
//
// New ensemble. The pool is the writable bookies minus `excluded`, minus
// quarantined ones, minus (when enforcing) those in the default rack. Slots
// are filled in order; each draws, by the configured weighting, from the pool
// members that keep every write quorum able to span
// m = min(write_quorum, minNumRacksPerWriteQuorum) racks (rack_coverage.h).
// There is no local node: the first slot draws from the whole pool.
//   - A dead end (no bookie keeps coverage) restarts the draw, up to
//     max_placement_attempts times.
//   - Enforcing: fewer than m racks in the pool, or every attempt dead-ended,
//     is NotEnoughBookies. Not enforcing: with fewer than m racks in the pool
//     the draw aims at as many racks as there are; the last attempt fills
//     dead ends from the whole pool; such results carry adherence FAIL.
//
// Replacement of ensemble[index]. From the pool minus the ensemble, in turn:
// the replaced bookie's rack; racks used by no other ensemble member; (not
// enforcing) any rack. Nothing left is NotEnoughBookies.
//
// Quarantine (best effort): when the pool without quarantined bookies gives
// NotEnoughBookies, the choice is retried with them; a result that had to use
// one and meets the rack rule is MEETS_SOFT rather than MEETS_STRICT.
//
// Weighting, per draw over the eligible bookies:
//   none     uniform;
//   disk     DiskWeights over all writable bookies (cap against their median);
//   load     LoadWeights (BP-65) over the candidates of this draw (the pool
//            minus bookies already placed), as BookKeeper draws from all
//            bookies not excluded and checks the rack rule afterwards; the
//            bookies the rack rule allows keep their weights (all zero:
//            uniform among them);
//   adaptive AdaptiveChooser over the eligible bookies, with the slot rate
//            from the ledger's hints (adaptive_chooser.h).
//
// Region mode (options.region.enabled; BookKeeper's
// RegionAwareEnsemblePlacementPolicy). The pool keeps only the regions of
// reppRegionsToWrite when set. Slots fill in order; each draws, by the same
// weighting, among the pool members RegionCoverage allows
// (region_coverage.h: durability over regions, racks inside each region),
// narrowed first to the client's own region for slot 0 when it has an
// allowed bookie, then to the allowed regions holding the fewest members so
// far (BookKeeper's even spread; a region short of bookies takes what it
// has and the others take the rest). Fewer regions than
// reppMinimumRegionsForDurability, or every attempt dead-ended, is
// NotEnoughBookies; with durability off (<= 1) the last attempt may break
// the spread instead, judged FAIL. Replacement tries, in turn: the replaced
// bookie's rack, its region, any region, each keeping the rule in the write
// quorums through the slot; then any region keeping durability only; and,
// when reppEnableDurabilityEnforcementInReplace is off or the rest of the
// ensemble already breaks durability, any bookie. Adherence is
// JudgeRegionAdherence. Reads, with the client's own region set, ask its
// healthy replicas in that region before the other healthy ones.
//
// Isolation groups (isolation_groups.h), in either mode: a ledger whose
// hints name a primary group is placed over that group's bookies (with
// exclusions, quarantine and read-only handled as above); only when that
// gives NotEnoughBookies is it placed over primary and secondary groups.
//
// Not thread-safe (see ensemble_placement_policy.h). `gen` must outlive the
// policy.

#ifndef BK_PLACEMENT_RACK_AWARE_POLICY_H_
#define BK_PLACEMENT_RACK_AWARE_POLICY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/bit_gen_ref.h"
#include "placement/adaptive_chooser.h"
#include "placement/ensemble_placement_policy.h"
#include "placement/options.h"
#include "placement/topology.h"

namespace bk::placement {

class RackAwarePolicy final : public EnsemblePlacementPolicy {
 public:
  // REQUIRES: ValidatePlacementOptions(options).ok().
  RackAwarePolicy(const PlacementOptions& options, absl::BitGenRef gen);

  void OnClusterChanged(const std::vector<BookieNode>& writable,
                        const std::vector<BookieNode>& readonly) override;
  void OnBookieInfo(const BookieId& id, const BookieInfo& info,
                    absl::Time received_at) override;
  void OnClientObservation(const BookieId& id, int64_t inflight_adds,
                           absl::Duration add_latency, absl::Time at) override;
  void Quarantine(const BookieId& id, absl::Time until) override;
  void AdvanceTime(absl::Time now) override;

  using EnsemblePlacementPolicy::NewEnsemble;
  using EnsemblePlacementPolicy::ReplaceBookie;
  absl::StatusOr<PlacementResult> NewEnsemble(
      int ensemble_size, int write_quorum, int ack_quorum,
      const BookieSet& excluded, const LedgerHints& hints) override;
  absl::StatusOr<ReplacementResult> ReplaceBookie(
      const std::vector<BookieId>& ensemble, int index, int write_quorum,
      int ack_quorum, const BookieSet& excluded,
      const LedgerHints& hints) override;
  std::vector<int> ReorderReadSequence(
      const std::vector<BookieId>& ensemble, const std::vector<int>& write_set,
      const BookieHealthMap& health) const override;

  // Another client created a ledger with `hints` on `ensemble` (E =
  // ensemble.size()). The adaptive weighting counts its slots like this
  // client's own placements until reports show them, and remembers their
  // rate; other weightings ignore it. The client's placement feed calls
  // it for every ledger another client announces
  // (AdaptiveOptions::share_new_ledgers), as does the simulator.
  void OnPlacedElsewhere(const std::vector<BookieId>& ensemble,
                         int write_quorum, const LedgerHints& hints);

  // This client closed a ledger it wrote with `hints` on `ensemble`. The
  // adaptive weighting takes its slots off those bookies' estimates until
  // reports show them writing less, so that the broker's next ledger (a
  // roll closes one and opens the next at once) sees the room the closed
  // one left; other weightings ignore it.
  void OnLedgerClosed(const std::vector<BookieId>& ensemble, int write_quorum,
                      const LedgerHints& hints);
  // Another client closed a ledger with `hints` on `ensemble` (heard
  // through the placement feed): the same effect as OnLedgerClosed.
  void OnClosedElsewhere(const std::vector<BookieId>& ensemble,
                         int write_quorum, const LedgerHints& hints);
  // Another client's ledger with `hints`, on an ensemble of `ensemble_size`
  // members, changed ensemble: `leaving` stopped taking its adds (counted
  // as closed on that bookie alone) and `joining` started (counted as
  // placed there), as this client's own successful ReplaceBookie counts
  // them.
  void OnReplacedElsewhere(const BookieId& leaving, const BookieId& joining,
                           int ensemble_size, int write_quorum,
                           const LedgerHints& hints);

  // The adaptive weighting's estimate of each writable bookie's write
  // MiB/s at the policy's time: its report brought forward, plus the
  // placements and less the closes this client counts and reports do not
  // show yet (adaptive_chooser.h, step 0). Empty for other weightings.
  // Read-only, for tools and tests.
  absl::flat_hash_map<BookieId, double> EstimatedLoads() const;

  // The adaptive weighting's reason to leave each writable bookie out of a
  // slot of the ledger `hints` describes (E = `ensemble_size`, WQ =
  // `write_quorum`) if it were placed now, for the bookies it would leave
  // out (AdaptiveChooser::LeftOutReason: a slow report, a busy journal,
  // slow adds, no headroom for a big slot). Rack rules, quarantine and
  // exclusions are not included. Empty for other weightings. Read-only,
  // for tools and tests.
  absl::flat_hash_map<BookieId, std::string> LeftOut(const LedgerHints& hints,
                                                     int ensemble_size,
                                                     int write_quorum) const;

  // Probe on placement (adaptive weighting with
  // options.adaptive.probe_candidates = D > 0; empty otherwise): the
  // bookies the client should ask for a fresh report (GetBookieInfo) before
  // its next NewEnsemble or ReplaceBookie of `slots` slots (E for a new
  // ensemble, 1 for a replacement): min(D x slots, pool) bookies of the
  // pool minus `excluded`, picked by options.adaptive.probe_pick on this
  // client's estimate (least loaded, random, half each, or drawn by the
  // rule for a slot of the ledger `hints` describe, whose ensemble has
  // `ensemble_size` members and `write_quorum`). Draws from the
  // policy's generator. Isolation groups are not applied here: a candidate
  // outside the ledger's groups is simply never eligible.
  std::vector<BookieId> ProbeCandidates(int ensemble_size, int write_quorum,
                                        int slots, const BookieSet& excluded,
                                        const LedgerHints& hints);
  // A probe's answer: `id`'s report as the bookie gave it at `at`. It is
  // taken as a report (OnBookieInfo), and the next NewEnsemble or
  // ReplaceBookie chooses, for each slot where at least one bookie that
  // answered is eligible, only among those (by the same rule, on their
  // fresh figures); a slot where none is eligible chooses as without
  // probes. A candidate that did not answer (unreachable, too slow) gets
  // no call (OnProbeUnanswered instead): it keeps its earlier report and
  // estimate. The answered set is forgotten when that call returns.
  void OnProbeReport(const BookieId& id, const BookieInfo& info, absl::Time at);
  // A candidate that was asked and did not answer (unreachable, too slow,
  // an error): the next NewEnsemble or ReplaceBookie chooses it for a slot
  // only when no other bookie is eligible there, after the bookies that
  // answered with a slow latency. Forgotten when that call returns.
  void OnProbeUnanswered(const BookieId& id);

  const Topology& topology() const { return topology_; }
  const PlacementOptions& options() const { return options_; }

 private:
  // Weights prepared once per call for the weightings that need the whole
  // cluster (disk, adaptive), keyed by bookie.
  using WeightTable = absl::flat_hash_map<BookieId, double>;

  WeightTable PrepareWeights() const;
  // Draws one of `eligible` (non-empty) by the configured weighting.
  // `candidates` (a superset of `eligible`: the pool minus bookies already
  // placed) is the population BP-65 filters and falls back over.
  size_t Draw(const std::vector<const BookieId*>& eligible,
              const std::vector<const BookieId*>& candidates,
              const WeightTable& table, double slot_mib);
  // Probe on placement (probe_choice.cc): one of `eligible`, from the
  // first tier that has any: the bookies that answered a probe and whose
  // fresh report does not give a slow add latency; those not asked; those
  // that answered slow. Nullopt without probes, or when only bookies that
  // did not answer are eligible.
  std::optional<size_t> DrawProbed(const std::vector<const BookieId*>& eligible,
                                   double slot_mib);
  // The MiB/s each member of a ledger with `hints` receives; -1 unknown.
  static double SlotMiB(const LedgerHints& hints, int ensemble_size,
                        int write_quorum);
  void RecordPlaced(const std::vector<BookieId>& bookies, double slot_mib);
  // A ledger's slots of `slot_mib` left `bookies` (closed, or replaced
  // there): the adaptive weighting takes them off until reports show it.
  void RecordClosed(const std::vector<BookieId>& bookies, double slot_mib);
  void PrepareView();
  // The pool: writable, not excluded, not in the default rack when
  // enforcing, in reppRegionsToWrite (region mode, when set), and not
  // quarantined unless `use_quarantined`.
  std::vector<const BookieId*> Pool(const BookieSet& excluded,
                                    bool use_quarantined) const;
  bool IsQuarantined(const BookieId& id) const;
  bool UsesQuarantined(const std::vector<BookieId>& bookies) const;

  // `excluded` plus every writable bookie in none of `groups`.
  BookieSet OutsideGroups(const BookieSet& excluded,
                          const std::vector<std::string>& groups) const;

  absl::StatusOr<PlacementResult> TryNewEnsemble(
      int ensemble_size, int write_quorum, int ack_quorum,
      const BookieSet& excluded, bool use_quarantined, double slot_mib);
  absl::StatusOr<ReplacementResult> TryReplace(
      const std::vector<BookieId>& ensemble, int index, int write_quorum,
      int ack_quorum, const BookieSet& excluded, bool use_quarantined,
      double slot_mib);
  // Region mode's versions (region_aware_choice.cc).
  absl::StatusOr<PlacementResult> TryRegionEnsemble(
      int ensemble_size, int write_quorum, int ack_quorum,
      const BookieSet& excluded, bool use_quarantined, double slot_mib);
  absl::StatusOr<ReplacementResult> TryRegionReplace(
      const std::vector<BookieId>& ensemble, int index, int write_quorum,
      int ack_quorum, const BookieSet& excluded, bool use_quarantined,
      double slot_mib);
  // The rack (region mode: region) adherence of `ensemble`, MEETS_SOFT
  // instead of MEETS_STRICT when the policy had to choose a quarantined
  // bookie.
  Adherence Judge(const std::vector<BookieId>& ensemble, int write_quorum,
                  int ack_quorum, bool chose_quarantined) const;

  // Constant after construction.
  const PlacementOptions options_;
  absl::BitGenRef gen_;  // not owned; outlives the policy

  // Not thread-safe: touched only by the caller's serialised calls.
  Topology topology_;
  AdaptiveChooser chooser_;
  AdaptiveChooser::View view_;  // prepared per call (adaptive)
  absl::flat_hash_map<BookieId, absl::Time> quarantined_until_;
  BookieSet probed_;      // answered probes for the next choice (OnProbeReport)
  BookieSet unanswered_;  // asked, no answer, for the next choice
  absl::Time now_ = absl::InfinitePast();
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_RACK_AWARE_POLICY_H_
