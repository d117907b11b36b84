// GreedyEnsemble: the reference placement of clients.greedy -- "always pick
// the least loaded bookies", with information no client has: every bookie's
// offered write rate at this very moment, other clients' placements of a
// moment ago included. It puts the new ledger on the E writable bookies with
// the least offered rate, each in a rack no earlier member uses while such a
// bookie is left (the rack rule of E = WQ ensembles), else the least loaded
// of the rest.
//
// Why it is here: the spread target's lower bound (ideal_balance.h) re-places
// every open ledger each interval; an online policy places a ledger once and
// must keep it. This oracle is online and place-once too, and rate-blind:
// what it reaches is what placement can reach once staleness is gone, so the
// distance from it to a real policy is what staleness and the policy's rule
// cost, not what placing once costs (tools/sim/README.md, "The online
// limit"). It is not a bound.
//
// Deterministic: ties go to the lower bookie index.

#ifndef BK_TOOLS_SIM_GREEDY_ORACLE_H_
#define BK_TOOLS_SIM_GREEDY_ORACLE_H_

#include <vector>

#include "tools/sim/cluster.h"

namespace bk::sim {

// The ensemble (bookie indices) of `ensemble_size` members, from `offered`
// (bytes/s per bookie, parallel to cluster.bookies); fewer members only when
// fewer bookies are writable.
std::vector<int> GreedyEnsemble(const Cluster& cluster,
                                const std::vector<double>& offered,
                                int ensemble_size);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_GREEDY_ORACLE_H_
