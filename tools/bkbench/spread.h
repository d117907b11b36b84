// How evenly a run's write load fell on the bookies (issue 23, item 4):
// each bookie's journal write MB/s as it reported it (GetBookieInfo,
// sampled once a second), averaged over the run, and the spread of those
// means across bookies; and where each measured ledger was placed, with
// what the writer's policy saw of each member when it placed it.
#ifndef BK_TOOLS_BKBENCH_SPREAD_H_
#define BK_TOOLS_BKBENCH_SPREAD_H_

#include <string>
#include <vector>

#include "tools/bkbench/scenario_result.h"

namespace bk::bkbench {

struct Spread {
  std::vector<double> mean_mb_per_s;  // per bookie, in run.bookies order
  double stddev = -1;                 // population stddev of the means
  double min = -1, max = -1;
};

// -1 figures when no bookie reported a write rate.
Spread BookieWriteSpread(const WorkloadRun& run);

// The report's "Spread across bookies" section: a table of each run's
// spread (and its ratio to the `none` run's, when there is one); each
// run's placement of the hot ledger (ledger 0) with its inputs; for an
// adaptive run, its estimate of every bookie just before it placed ledger
// 0, ranked within each rack; and every measured ledger's first ensemble
// with its members' inputs. Empty when the scenario has one run and no hot
// ledger.
std::string SpreadSection(const ScenarioResult& r);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_SPREAD_H_
