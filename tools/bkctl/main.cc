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
  for (auto group : {&PlacementCommands, &SimulateCommands}) {
    std::vector<Command> commands = group();
    all.insert(all.end(), commands.begin(), commands.end());
  }
  return all;
}

void PrintHelp(const std::vector<Command>& commands, std::ostream& out) {
  out << "usage: bkctl <group> <command> [--flag value ...]\n"
         "       bkctl help [<group> <command>]\n\ncommands:\n";
  for (const Command& c : commands) {
    out << "  " << c.group << " " << c.name << "\t" << c.summary << "\n";
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
  if (args.size() < first + 2) {
    std::cerr << "bkctl: expected <group> <command>; see `bkctl help`\n";
    return kExitUsage;
  }
  for (const Command& c : commands) {
    if (c.group != args[first] || c.name != args[first + 1]) continue;
    if (help) {
      std::cout << "usage: bkctl " << c.group << " " << c.name << " [flags]\n"
                << c.summary << "\n"
                << c.usage;
      return kExitOk;
    }
    std::vector<std::string> rest(args.begin() + 2, args.end());
    return c.run(rest, std::cout, std::cerr);
  }
  std::cerr << "bkctl: unknown command \"" << args[first] << " "
            << args[first + 1] << "\"; see `bkctl help`\n";
  return kExitUsage;
}

}  // namespace
}  // namespace bk::bkctl

int main(int argc, char** argv) {
  return bk::bkctl::Main(std::vector<std::string>(argv + 1, argv + argc));
}
