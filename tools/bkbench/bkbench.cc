// bkbench: client-side benchmarks.
//
//   bkbench write --metadata-uri URI [--ledgers 4] [--entry-size 1024]
//       [--rate N | max] [--duration 10] [-e 3 -w 2 -a 2]
//       [--weighting load] [--journal-dir DIR] [--echo-seconds 3] [--json]
//   bkbench scenario --file bench/scenarios/NAME.yaml
//       [--metadata-uri URI | --local-cluster DIR] [--report DIR] [--json]
//       [--seed S]
//
// See README.md: what each prints, the scenario format, the report.

#include <iostream>
#include <string>
#include <vector>

#include "tools/bkbench/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "write") {
    return bk::bkbench::WriteCommand({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "scenario") {
    return bk::bkbench::ScenarioCommand({args.begin() + 1, args.end()});
  }
  std::cerr
      << "usage: bkbench write --metadata-uri URI [--ledgers N] "
         "[--entry-size B] [--rate N|max] [--duration S] [-e E -w W -a A] "
         "[--weighting W] [--journal-dir DIR] [--echo-seconds S] [--json]\n"
         "       bkbench scenario --file YAML [--metadata-uri URI | "
         "--local-cluster DIR] [--report DIR] [--json] [--seed S] "
         "[--bookie-binary PATH] [--echo-seconds S] [--quiet]\n";
  return args.size() == 1 && (args[0] == "help" || args[0] == "--help")
             ? 0
             : bk::bkbench::kExitUsage;
}
