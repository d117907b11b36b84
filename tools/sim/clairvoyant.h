// ClairvoyantEnsemble: the reference placement of clients.clairvoyant -- a
// place-once oracle that no client can be. It knows every open ledger's exact
// rate and the time it will close, and the new ledger's closing time, and
// puts the new ledger on the E distinct writable bookies, outside any gray
// failure, that will carry the least load over the new ledger's life from
// the ledgers open now:
//
//   argmin over b of  sum over open ledgers j with b in their ensemble of
//                     member_rate_j x (min(close_j, close) - now)
//
// which is the choice that adds least to the time integral of the sum of
// squared loads (each member adds 2 x rate x integral(load) + rate^2 x life,
// the same for every bookie but the first term). Greedy over the known
// future of the open ledgers; it ignores racks and the ledgers that will
// open later. So it estimates what placing each ledger once, with every
// rate and lifetime known, reaches on the same traffic; it is not an
// optimum, and not a bound.
//
// Deterministic: ties go to the lower bookie index.

#ifndef BK_TOOLS_SIM_CLAIRVOYANT_H_
#define BK_TOOLS_SIM_CLAIRVOYANT_H_

#include <memory>
#include <vector>

#include "tools/sim/cluster.h"
#include "tools/sim/scenario.h"
#include "tools/sim/sim_client.h"

namespace bk::sim {

// The ensemble (bookie indices) for a ledger opening at `at_s` and closing
// at `close_s`; fewer than E bookies only when fewer are writable and
// healthy.
std::vector<int> ClairvoyantEnsemble(
    const Scenario& s, const Cluster& cluster,
    const std::vector<std::unique_ptr<SimClient>>& clients, double at_s,
    double close_s);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_CLAIRVOYANT_H_
