// Cluster: the simulated bookies, their racks and their journal devices, as a
// scenario lays them out.
//
// Bookie ids are "b000", "b001", ... in bookie-group order. Each group's
// bookies fill devices `bookies_per_device` at a time; device d sits in rack
// "/region/rack-<d mod racks>" (with regions R > 1: "/region-<d mod R>/
// rack-<(d / R) mod racks>"), so bookies sharing a journal disk share a
// machine and a rack. Read-only bookies are spread evenly: bookie i is
// read-only when floor((i+1) R / N) > floor(i R / N). Each bookie's ledger
// disk starts its group's used fraction x U(0.5, 1.5) full (capped below 1),
// drawn from the cluster stream of the seed.

#ifndef BK_TOOLS_SIM_CLUSTER_H_
#define BK_TOOLS_SIM_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "placement/types.h"
#include "tools/sim/bookie_monitor.h"
#include "tools/sim/journal_device.h"
#include "tools/sim/scenario.h"

namespace bk::sim {

struct SimBookie {
  placement::BookieNode node;  // id and rack
  int device = 0;              // index into Cluster::devices
  int slot = 0;                // this bookie's index on its device
  bool readonly = false;
};

struct Cluster {
  std::vector<SimBookie> bookies;
  std::vector<JournalDevice> devices;
  std::vector<std::vector<int>> device_bookies;  // device -> bookies on it
  std::vector<BookieMonitor> monitors;           // parallel to bookies
  std::vector<placement::BookieNode> writable, readonly;
};

// REQUIRES: ValidateScenario(scenario).ok().
Cluster BuildCluster(const Scenario& scenario, uint64_t seed);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_CLUSTER_H_
