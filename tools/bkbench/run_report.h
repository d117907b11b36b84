// The run report of a scenario: DIR/report.md with the figures and PNG
// charts rendered by gnuplot (a subprocess; gnuplot-nox), beside the data
// (*.dat), the gnuplot scripts (*.gp) and result.json:
//   throughput.png          acknowledged adds per second, one line per run
//   latency_p50.png,
//   latency_p99.png         add latency per second, one line per run (log y)
//   bookie_write_<run>.png  each bookie's journal write MB/s per second
//                           (its GetBookieInfo report)
//   bookie_util_<run>.png   each bookie's journal utilisation per second
//   backlog.png             each reader's backlog (writer's LAC - position)
//                           per second (only with readers)
//   tail_latency.png        each reader's p99 added -> read per second, once
//                           caught up (only with readers)

#ifndef BK_TOOLS_BKBENCH_RUN_REPORT_H_
#define BK_TOOLS_BKBENCH_RUN_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/bkbench/scenario_result.h"

namespace bk::bkbench {

// The Markdown summary alone (also printed by `bkbench scenario`).
std::string ReportMarkdown(const ScenarioResult& r);

// Creates `dir` if needed and writes the report into it.
// kFailedPrecondition if gnuplot cannot be run (the .md and .dat files are
// written first); kInternal if it fails; kInvalidArgument for a directory
// name gnuplot cannot quote.
absl::Status WriteRunReport(const ScenarioResult& r, const std::string& dir,
                            const std::string& gnuplot = "gnuplot");

// The PNG files WriteRunReport renders for `r`.
std::vector<std::string> ReportCharts(const ScenarioResult& r);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_RUN_REPORT_H_
