// Targets: the placement targets of bp65 (tools/sim/README.md, "Targets"),
// measured on a list of seeds and printed as one set of tables.
//
// Per seed, on the base scenario (its report interval, its clients, rate
// hints on, its gray failures), with the runs named after what changes:
//  - base:       none, load and adaptive -- spread, gap closed, the tail
//                with BookKeeper's client, and BP-65's direction (load vs
//                none);
//  - fresh:      adaptive with reports polled every 1 s;
//  - lag:        load and adaptive with this project's client, which also
//                replaces a bookie lagging its write set by
//                add_lag_timeout_s (addEntryLagTimeoutMs) -- the tail with
//                gray failures (the targets' client; "base" keeps the
//                scenario's, for bp65.yaml BookKeeper's);
//  - blind:      adaptive without rate hints;
//  - no_gray:    none and adaptive without gray failures -- the tail that
//                placement alone is responsible for;
//  - perfect:    adaptive with exact, instant reports at every placement
//                (clients.perfect_reports): what an online policy reaches
//                with perfect information, the reference for "fresh";
//  - clairvoyant: new ensembles by the simulator's clairvoyant place-once
//                oracle (clients.clairvoyant: exact rates and closing
//                times of every ledger), replacements by adaptive: an
//                estimate of what placing each ledger once can reach;
//  - herd:       adaptive at 30 s and 60 s report ages with 20 and 50
//                clients (total topics held);
//  - partitioned (when a second scenario is given): none and adaptive.
// Random placement ignores reports and hints, so the base run's "none" is
// the reference of every variant of the same seed (gap closed uses it and
// the smallest lower bound of the seed's runs on that scenario).

#ifndef BK_TOOLS_SIM_TARGETS_H_
#define BK_TOOLS_SIM_TARGETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/sim/scenario.h"
#include "tools/sim/simulator.h"

namespace bk::sim {

struct TargetsOptions {
  Scenario base;
  std::optional<Scenario> partitioned;
  std::vector<uint64_t> seeds;
  int threads = 2;  // runs simulated at once, [1, 64]
  // add_lag_timeout_s of the "lag" runs: the client's addEntryLagTimeoutMs
  // default. The other runs keep the scenario's (bp65.yaml: 0, BookKeeper's
  // client).
  double add_lag_timeout_s = 3;
};

// One run: a variant of a scenario, one policy, one seed.
struct TargetRun {
  uint64_t seed = 0;
  std::string variant;  // "base", "fresh", "blind", ... (targets.h)
  PolicyRun run;
};

struct TargetsResult {
  std::vector<TargetRun> runs;
  double wall_seconds = 0;
};

// kInvalidArgument when a variant makes an invalid scenario (naming it) or
// the options are out of range.
absl::StatusOr<TargetsResult> MeasureTargets(const TargetsOptions& options);

// The run of `variant` / `policy` for `seed`, or null.
const PolicyRun* FindRun(const TargetsResult& r, uint64_t seed,
                         const std::string& variant,
                         placement::Weighting policy);

// Markdown: one table per target group, a row per seed, and per target the
// seeds that meet it.
std::string TargetsToMarkdown(const TargetsOptions& options,
                              const TargetsResult& result);
nlohmann::ordered_json TargetsToJson(const TargetsOptions& options,
                                     const TargetsResult& result);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_TARGETS_H_
