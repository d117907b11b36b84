// The table of every bkctl command group (command.h).

#include <vector>

#include "tools/bkctl/command.h"

namespace bk::bkctl {

// Every command group, in the order `help` lists them.
std::vector<Command> AllCommands() {
  std::vector<Command> all;
  for (auto group :
       {&ClusterInfoCommands, &ClusterCommands, &LedgerReadCommands,
        &BookieGroupsCommands, &LedgerCommands, &LocalClusterCommands,
        &PlacementCommands, &SimulateCommands, &AutoRecoveryCommands,
        &ReplicationCommands, &ForensicsCommands, &IndexCommands,
        &UpdateCookieCommands, &CompletionCommands}) {
    std::vector<Command> commands = group();
    all.insert(all.end(), commands.begin(), commands.end());
  }
  return all;
}

}  // namespace bk::bkctl
