// IdealBalanceStddev: how evenly an omniscient, central balancer could spread
// a given set of open ledgers over the bookies -- the yardstick for the
// throughput-spread figures (metrics.h), which no client-side placement can
// beat by much.
//
// The balancer sees every open ledger's exact write rate at once and may
// re-place all of them: ledgers in descending order of per-member rate, each
// onto the E least-loaded distinct bookies (greedy LPT). With thousands of
// ledgers this is within a hair of the optimum; what it cannot remove is the
// heavy tail: a ledger writing r MiB/s puts r x WQ / E on each member however
// it is placed, so a bookie holding one of the biggest ledgers sits far
// above the mean. Ignores racks and device capacity (both only add spread).

#ifndef BK_TOOLS_SIM_IDEAL_BALANCE_H_
#define BK_TOOLS_SIM_IDEAL_BALANCE_H_

#include <vector>

namespace bk::sim {

// Population stddev (in the unit of `member_rates`) of the per-bookie load
// after greedy placement of ledgers whose every member receives
// member_rates[i], over `bookies` bookies, `ensemble_size` members each.
// REQUIRES: 1 <= ensemble_size <= bookies.
double IdealBalanceStddev(std::vector<double> member_rates, int bookies,
                          int ensemble_size);

// A proven lower bound on that stddev for ANY placement of the same ledgers.
// Each ledger gives E slots of its member rate; whatever the placement, the k
// busiest bookies carry at least the k largest slots, so the sorted load
// vector majorizes the water-filled vector y_i = max(s_i, level) (s_i the
// i-th largest slot, level chosen so that sum y = total), and stddev is
// Schur-convex. Same REQUIRES.
double BalanceLowerBoundStddev(std::vector<double> member_rates, int bookies,
                               int ensemble_size);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_IDEAL_BALANCE_H_
