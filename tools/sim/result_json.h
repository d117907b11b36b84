// The simulator's JSON output, in the shape issue 9 fixes so that other tools
// can read it:
//   {"policies": {"none": {"throughput_stddev": MB/s, "throughput_range": MB/s,
//                          "top10_throughput": MB/s, "p50_write_latency": s,
//                          "p99_write_latency": s, "p999_write_latency": s,
//                          "herd_index": x, "disk_throughput_stddev": MB/s,
//                          "disk_throughput_range": MB/s,
//                          "disk_top10_throughput": MB/s, ...},
//                "disk": {...}, ...},
//    "scenario": {...the scenario as read...}, "seed": S}
// Peak values over the run (metrics.h). Wall-clock run time is left out so
// that the same seed and scenario give byte-identical JSON. Numbers are
// rounded to 6 significant digits.

#ifndef BK_TOOLS_SIM_RESULT_JSON_H_
#define BK_TOOLS_SIM_RESULT_JSON_H_

#include "nlohmann/json.hpp"
#include "tools/sim/scenario.h"
#include "tools/sim/simulator.h"

namespace bk::sim {

nlohmann::ordered_json ScenarioToJson(const Scenario& scenario);
nlohmann::ordered_json ResultToJson(const SimulationResult& result);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_RESULT_JSON_H_
