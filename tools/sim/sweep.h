// Sweep: where each policy breaks. Two one-dimensional sweeps around a base
// scenario, every point run for every policy with the same seed:
//  - report age: clients.report_interval_s over `report_intervals`, at the
//    base client count;
//  - client count: clients.count over `client_counts`, at the base report
//    interval, with the total number of topics (and so the traffic) held at
//    the base count x topics_per_client (topics per client rounded, >= 1).

#ifndef BK_TOOLS_SIM_SWEEP_H_
#define BK_TOOLS_SIM_SWEEP_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/sim/simulator.h"

namespace bk::sim {

struct SweepOptions {
  std::vector<double> report_intervals;  // seconds
  std::vector<int> client_counts;
};

struct SweepPoint {
  double report_interval_s = 0;
  int clients = 0;
  int topics_per_client = 0;
  std::vector<PolicyRun> runs;
};

struct SweepResult {
  std::vector<SweepPoint> by_report_age;
  std::vector<SweepPoint> by_clients;
  double wall_seconds = 0;
};

// kInvalidArgument when a point makes an invalid scenario (naming it).
absl::StatusOr<SweepResult> Sweep(const Scenario& base, uint64_t seed,
                                  const SweepOptions& options);

// {"seed": S, "scenario": {...}, "report_age": [{"report_interval_s": x,
//  "clients": n, "policies": {<as result_json.h>}}, ...], "clients": [...]}
nlohmann::ordered_json SweepToJson(const Scenario& base, uint64_t seed,
                                   const SweepResult& result);
// Markdown tables: p99 (s), stddev (MB/s) and peak herd per policy and point.
std::string SweepToMarkdown(const SweepResult& result);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SWEEP_H_
