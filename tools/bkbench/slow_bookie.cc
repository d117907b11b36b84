// The slow-bookie scenario (issue 9's live check): a cluster with one
// bookie whose journal syncs are slowed (testingSyncDelayMs; the cluster
// runs `bookie_testing`, the only program with that key), the same write
// workload once per placement weighting on it, then once on an all-healthy
// cluster of the same shape. Every run uses a fresh client, so each policy
// learns the cluster from its own bookie reports during the warm-up, and
// creates its measured ledgers only after that.

#include <iostream>

#include "absl/strings/str_cat.h"
#include "bench/bench_common.h"
#include "tools/bkbench/scenario_runner.h"

namespace bk::bkbench {

absl::StatusOr<ScenarioResult> RunSlowBookie(const ScenarioSpec& spec,
                                             const RunnerOptions& options,
                                             const std::string& dir) {
  ScenarioResult r;
  r.spec = spec;
  r.seed = options.seed;
  r.cluster =
      absl::StrCat("local clusters of ", spec.bookies, " bookies in ",
                   spec.racks, " racks under ", dir, "; bookie-",
                   spec.slow_bookie, " syncs +", spec.sync_delay_ms, " ms");
  {
    auto c = StartCluster(
        spec, dir + "/slow", options.testing_bookie_binary,
        {{spec.slow_bookie,
          absl::StrCat("testingSyncDelayMs=", spec.sync_delay_ms)}});
    if (!c.ok()) return c.status();
    const bench::Ceiling disk = bench::MeasureCeiling(
        dir, static_cast<size_t>(spec.entry_size) * 16, 1.0);
    r.disk_ceiling_mb_per_s = disk.mb_per_s;
    r.small_sync_ms = disk.small_sync_ms;
    const std::string slow_id = (*c)->bookies()[spec.slow_bookie].id;
    for (placement::Weighting w : spec.policies) {
      const std::string label(placement::WeightingName(w));
      if (options.progress) {
        std::cerr << "bkbench: slow-bookie run with weighting " << label
                  << "\n";
      }
      auto run =
          RunWorkload(spec, w, label, (*c)->metadata_uri(), options, slow_id);
      if (!run.ok()) {
        return absl::Status(run.status().code(),
                            absl::StrCat(label, ": ", run.status().message()));
      }
      r.runs.push_back(std::move(*run));
    }
  }
  auto healthy =
      StartCluster(spec, dir + "/healthy", options.bookie_binary, {});
  if (!healthy.ok()) return healthy.status();
  const std::string label = absl::StrCat(
      "healthy-", placement::WeightingName(spec.healthy_weighting));
  if (options.progress) std::cerr << "bkbench: " << label << " run\n";
  auto run = RunWorkload(spec, spec.healthy_weighting, label,
                         (*healthy)->metadata_uri(), options, "");
  if (!run.ok()) return run.status();
  r.runs.push_back(std::move(*run));
  return r;
}

}  // namespace bk::bkbench
