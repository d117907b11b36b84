// The slow-bookie scenario (issue 9's live check): a cluster with one
// bookie whose journal syncs are slowed (testingSyncDelayMs; the cluster
// runs `bookie_testing`, the only program with that key), the same write
// workload once per placement weighting on it, then once on an all-healthy
// cluster of the same shape. Every run uses a fresh client, so each policy
// learns the cluster from its own bookie reports during the warm-up, and
// creates its measured ledgers only after that. With
// sync_delay_x_healthy_p99 the healthy run goes first and sizes the delay.

#include <cmath>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/measure.h"
#include "tools/bkbench/scenario_runner.h"

namespace bk::bkbench {

absl::StatusOr<ScenarioResult> RunSlowBookie(const ScenarioSpec& spec,
                                             const RunnerOptions& options,
                                             const std::string& dir) {
  ScenarioResult r;
  r.spec = spec;
  r.seed = options.seed;
  const std::string healthy_label = absl::StrCat(
      "healthy-", placement::WeightingName(spec.healthy_weighting));
  auto run_healthy = [&]() -> absl::StatusOr<WorkloadRun> {
    auto healthy =
        StartCluster(spec, dir + "/healthy", options.bookie_binary, {});
    if (!healthy.ok()) return healthy.status();
    if (options.progress) std::cerr << "bkbench: " << healthy_label << " run\n";
    return RunWorkload(spec, spec.healthy_weighting, healthy_label,
                       (*healthy)->metadata_uri(), options, "");
  };
  // The delay: as given, or sized from the healthy run's p99 first.
  int64_t delay_ms = spec.sync_delay_ms;
  std::optional<WorkloadRun> healthy_run;
  std::string sizing;
  if (spec.sync_delay_x_healthy_p99 > 0) {
    auto run = run_healthy();
    if (!run.ok()) return run.status();
    const double p99_ms = run->write.latency.PercentileUs(0.99) / 1000.0;
    // testingSyncDelayMs takes at most a minute.
    delay_ms = std::min<int64_t>(
        60000, std::max<int64_t>(spec.sync_delay_ms,
                                 static_cast<int64_t>(std::ceil(
                                     spec.sync_delay_x_healthy_p99 * p99_ms))));
    sizing = absl::StrFormat(
        " (%.3gx the healthy run's add p99 of %.2f ms, at least %d ms)",
        spec.sync_delay_x_healthy_p99, p99_ms, spec.sync_delay_ms);
    healthy_run = std::move(*run);
  }
  r.cluster =
      absl::StrCat("local clusters of ", spec.bookies, " bookies in ",
                   spec.racks, " racks under ", dir, "; bookie-",
                   spec.slow_bookie, " syncs +", delay_ms, " ms", sizing);
  {
    auto c = StartCluster(
        spec, dir + "/slow", options.testing_bookie_binary,
        {{spec.slow_bookie, absl::StrCat("testingSyncDelayMs=", delay_ms)}});
    if (!c.ok()) return c.status();
    auto disk = measure::MeasureCeiling(
        dir, static_cast<size_t>(spec.entry_size) * 16, 1.0);
    if (!disk.ok()) return disk.status();
    r.disk_ceiling_mb_per_s = disk->mb_per_s;
    r.small_sync_ms = disk->small_sync_ms;
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
  if (!healthy_run.has_value()) {
    auto run = run_healthy();
    if (!run.ok()) return run.status();
    healthy_run = std::move(*run);
  }
  r.runs.push_back(std::move(*healthy_run));
  return r;
}

}  // namespace bk::bkbench
