// How much of the gap between random placement and the proven lower bound
// a policy closes (simulator.h: LowerBoundStddev, GapClosed).

#include <algorithm>
#include <limits>

#include "tools/sim/simulator.h"

namespace bk::sim {

double LowerBoundStddev(const SimulationResult& r) {
  double bound = std::numeric_limits<double>::infinity();
  for (const PolicyRun& run : r.runs) {
    bound = std::min(bound, run.summary.bound_throughput_stddev);
  }
  return r.runs.empty() ? 0 : bound;
}

double GapClosed(const SimulationResult& r, const PolicyRun& run) {
  for (const PolicyRun& none : r.runs) {
    if (none.weighting != placement::Weighting::kNone) continue;
    const double gap = none.summary.throughput_stddev - LowerBoundStddev(r);
    if (!(gap > 0)) break;
    return (none.summary.throughput_stddev - run.summary.throughput_stddev) /
           gap;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace bk::sim
