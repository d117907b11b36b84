// A bkctl command: `bkctl <group> <name> [flags]`.
//
// Each group of commands lives in its own file and exposes a function
// returning its commands (e.g. PlacementCommands()); command_table.cc lists
// those functions in one table. To add a group: write foo_commands.cc with
// `std::vector<Command> FooCommands()`, declare it below, add it to the
// table in command_table.cc and the source to CMakeLists.txt.

#ifndef BK_TOOLS_BKCTL_COMMAND_H_
#define BK_TOOLS_BKCTL_COMMAND_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace bk::bkctl {

// Exit codes of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and failed
inline constexpr int kExitUsage = 2;    // bad flags or arguments

struct Command {
  std::string group;    // "placement"; empty for a one-word command
  std::string name;     // "newensemble"
  std::string summary;  // one line for `bkctl help`
  std::string usage;    // flags, several lines, for `bkctl help <group> <name>`
  // Runs with the arguments after `<group> <name>`; writes results to `out`
  // and one-line errors to `err`; returns an exit code above.
  std::function<int(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err)>
      run;
};

// Every command of every group, in the order `help` lists them
// (command_table.cc).
std::vector<Command> AllCommands();
// completion bash (completion_command.cc): generated from AllCommands().
std::vector<Command> CompletionCommands();

std::vector<Command> PlacementCommands();
std::vector<Command> ClusterCommands();
std::vector<Command> LocalClusterCommands();
// simpletest, write, read, bookiesanity, format
std::vector<Command> LedgerCommands();
std::vector<Command> SimulateCommands();      // placement simulate | sweep
std::vector<Command> BookieGroupsCommands();  // bookiegroups set|get|list
// autorecovery, listunderreplicated, decommission, recover, whoisauditor,
// triggeraudit (autorecovery_commands.cc)
std::vector<Command> AutoRecoveryCommands();
// replication disable|enable|status (replication_commands.cc).
std::vector<Command> ReplicationCommands();
// cluster info (cluster_info_command.cc)
std::vector<Command> ClusterInfoCommands();
// updatecookie (updatecookie_command.cc)
std::vector<Command> UpdateCookieCommands();
// ledger read (ledger_read_command.cc)
std::vector<Command> LedgerReadCommands();
// readjournal, readentrylog, lastmark (forensics_commands.cc)
std::vector<Command> ForensicsCommands();
// check-db-ledger-locations-index, rebuild-db-ledger-locations-index
// (index_commands.cc)
std::vector<Command> IndexCommands();

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_COMMAND_H_
