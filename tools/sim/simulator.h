// The placement-quality simulator: a seeded, deterministic discrete-event
// simulation of many clients placing ledgers on a cluster of bookies with the
// real placement policy (placement/RackAwarePolicy), once per weighting.
//
// Events, in time order (ties in the order they were scheduled):
//  - tick (every tick_ms): journal devices advance (journal_device.h) with
//    the bytes the open ledgers offer; every open ledger's adds of the tick
//    get the latency of their entry: for each of the E write sets
//    {(k + i) mod E, i < WQ}, the AQ-th smallest of its bookies' device
//    latencies, weighted by the adds the set receives;
//  - monitor sample (every monitor.sample_interval_s): each bookie's report
//    slides (bookie_monitor.h);
//  - client poll (per client, every report_interval_s x U(1-j, 1+j), first
//    at a uniform phase): the client's policy receives every bookie's current
//    report, received now (getBookieInfoIntervalSeconds);
//  - client observation (per client, every observation_interval_s): for each
//    bookie its ledgers write to, its adds in flight (Little's law: its adds/s
//    to the bookie x the bookie's latency) and that latency
//    (OnClientObservation) -- fresh, private to the client;
//  - ledger roll (per topic): the open ledger closes and the client's policy
//    chooses the next ensemble (NewEnsemble) at the topic's next rate
//    (clients.clairvoyant: the oracle of clairvoyant.h chooses it); at
//    time 0 every topic opens a ledger whose remaining life is
//    U(0, 1) x its lifetime, so rolls are spread from the start;
//  - gray failure start / end.
// Probe on placement (placement.adaptive.probe_candidates > 0): before each
// NewEnsemble and ReplaceBookie the client asks the bookies its policy names
// (ProbeCandidates) for their current report, which each gives at once
// (zero time; counted) and the policy takes (OnProbeReport).
// Ensemble change (every tick, add_timeout_s > 0): a bookie whose device
// refused bytes this tick (backlog at max_queue_s: adds throttled) or whose
// add latency reached add_timeout_s fails its writers; each open ledger
// with it in its ensemble asks its client's policy for a replacement
// (ReplaceBookie, with the ledger's rate as the hint), the client
// quarantines the failed bookie for clients.quarantine_s, and the old
// bookie stops receiving the ledger's adds. A refused replacement is
// retried a second later. With add_lag_timeout_s (this project's client,
// addEntryLagTimeoutMs) at AQ == WQ, a write set's member whose add
// latency exceeds the rest of the set's by that much is replaced the same
// way (counted in lag_changes): the client sees the others answer first.
// Sharing (placement::SharesNewLedgers, or clients.shared_placements):
// every other client's policy learns each new ledger, close and ensemble
// change at once (OnPlacedElsewhere, OnClosedElsewhere,
// OnReplacedElsewhere), as the client's placement feed announces them.
// The lower bound is taken per metrics interval over the time-weighted
// bytes each ledger member received in it (ideal_balance.h): a ledger that
// changed ensemble or closed inside the interval counts as the parts it
// was, so the bound bounds the measured per-interval stddev exactly.
// Traffic and cluster come from streams of the seed that do not depend on
// the weighting (seeds.h), so every weighting sees the same load.

#ifndef BK_TOOLS_SIM_SIMULATOR_H_
#define BK_TOOLS_SIM_SIMULATOR_H_

#include <cstdint>
#include <vector>

#include "placement/options.h"
#include "tools/sim/metrics.h"
#include "tools/sim/scenario.h"

namespace bk::sim {

struct PolicyRun {
  placement::Weighting weighting = placement::Weighting::kNone;
  PolicySummary summary;
  int64_t ledgers_created = 0;
  int64_t placement_failures = 0;  // NotEnoughBookies and other errors
  int64_t ensemble_changes = 0;    // bookies replaced in open ledgers
  int64_t lag_changes = 0;         // of which for lagging (add_lag_timeout_s)
  int64_t replace_failures = 0;    // replacements the policy refused
  // Probe on placement: NewEnsemble and ReplaceBookie calls, and the
  // GetBookieInfo probes sent before them (0 without probing).
  int64_t placement_calls = 0;
  int64_t probes = 0;
  double offered_mib_per_second = 0;  // mean, per replica, after warm-up
  double wall_seconds = 0;            // not part of the deterministic output
};

struct SimulationResult {
  Scenario scenario;
  uint64_t seed = 0;
  std::vector<PolicyRun> runs;  // in scenario.policies order
  double wall_seconds = 0;
};

// REQUIRES: ValidateScenario(scenario).ok().
PolicyRun SimulatePolicy(const Scenario& scenario,
                         placement::Weighting weighting, uint64_t seed);
SimulationResult Simulate(const Scenario& scenario, uint64_t seed);

// The smallest lower bound (peak stddev) over `r`'s runs: the bound depends
// a little on each run's ensemble changes, and the smallest is the
// conservative one for every run.
double LowerBoundStddev(const SimulationResult& r);
// Share of the gap between random placement and the lower bound that `run`
// closes: (stddev_none - stddev_run) / (stddev_none - LowerBoundStddev(r)),
// from the peak stddevs. NaN when `r` has no "none" run or no gap.
double GapClosed(const SimulationResult& r, const PolicyRun& run);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SIMULATOR_H_
