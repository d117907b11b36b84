// The simulation report: `DIR/report.md` with the summary table and PNG
// charts rendered by gnuplot (a subprocess; gnuplot-nox):
//   throughput_stddev.png  per-bookie journal throughput stddev over time
//   throughput_range.png   its range (max - min) over time
//   throughput_top10.png   the ten busiest bookies' mean over time
//   latency_p50.png, latency_p99.png, latency_p999.png  per interval, log y
//   herd.png               herd index per window (metrics.h)
// plus the data (*.dat) and the gnuplot script (charts.gp) that drew them.

#ifndef BK_TOOLS_SIM_REPORT_H_
#define BK_TOOLS_SIM_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "tools/sim/simulator.h"

namespace bk::sim {

// Creates `dir` if needed and writes the report into it. kFailedPrecondition
// if `gnuplot` (a program name looked up in PATH, or a path) cannot be run;
// kInternal if it fails; kInvalidArgument for a directory name gnuplot cannot
// quote (one holding a single quote).
absl::Status WriteReport(const SimulationResult& result, const std::string& dir,
                         const std::string& gnuplot = "gnuplot");

// The path of `program` in PATH (or `program` itself if it holds a '/' and
// is executable); "" if none.
std::string FindProgram(const std::string& program);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_REPORT_H_
