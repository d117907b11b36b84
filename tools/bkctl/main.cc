// bkctl: `bkctl <group> <command> [--flag value ...]`, `bkctl help`.

#include <iostream>
#include <string>
#include <vector>

#include "tools/bkctl/command.h"

namespace bk::bkctl {
namespace {

// Every command group, in the order `help` lists them.
std::vector<Command> AllCommands() {
  std::vector<Command> all;
  for (auto group : {&ClusterCommands, &BookieGroupsCommands, &LedgerCommands,
                     &LocalClusterCommands, &PlacementCommands,
                     &SimulateCommands, &AutoRecoveryCommands}) {
    std::vector<Command> commands = group();
    all.insert(all.end(), commands.begin(), commands.end());
  }
  return all;
}

void PrintHelp(const std::vector<Command>& commands, std::ostream& out) {
  out << "usage: bkctl [<group>] <command> [--flag value ...]\n"
         "       bkctl help [[<group>] <command>]\n\ncommands:\n";
  for (const Command& c : commands) {
    const std::string full = c.group.empty() ? c.name : c.group + " " + c.name;
    out << "  " << full
        << std::string(full.size() < 24 ? 24 - full.size() : 1, ' ')
        << c.summary << "\n";
  }
}

int Main(const std::vector<std::string>& args) {
  const std::vector<Command> commands = AllCommands();
  if (args.empty()) {
    PrintHelp(commands, std::cerr);
    return kExitUsage;
  }
  const bool help = args[0] == "help" || args[0] == "--help";
  if (help && args.size() == 1) {
    PrintHelp(commands, std::cout);
    return kExitOk;
  }
  const size_t first = help ? 1 : 0;
  if (args.size() < first + 1) {
    std::cerr << "bkctl: expected a command; see `bkctl help`\n";
    return kExitUsage;
  }
  for (const Command& c : commands) {
    // A command is `<name>` (no group) or `<group> <name>`.
    size_t words = c.group.empty() ? 1 : 2;
    if (args.size() < first + words) continue;
    if (c.group.empty() ? c.name != args[first]
                        : c.group != args[first] || c.name != args[first + 1]) {
      continue;
    }
    const std::string full = c.group.empty() ? c.name : c.group + " " + c.name;
    if (help) {
      std::cout << "usage: bkctl " << full << " [flags]\n"
                << c.summary << "\n"
                << c.usage;
      return kExitOk;
    }
    std::vector<std::string> rest(args.begin() + first + words, args.end());
    return c.run(rest, std::cout, std::cerr);
  }
  std::cerr << "bkctl: unknown command \"" << args[first]
            << (args.size() > first + 1 ? " " + args[first + 1] : "")
            << "\"; see `bkctl help`\n";
  return kExitUsage;
}

}  // namespace
}  // namespace bk::bkctl

int main(int argc, char** argv) {
  return bk::bkctl::Main(std::vector<std::string>(argv + 1, argv + argc));
}
