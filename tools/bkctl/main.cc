// bkctl: `bkctl <group> <command> [--flag value ...]`, `bkctl help`.

#include <stdlib.h>

#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/malloc_tuning.h"
#include "tools/bkctl/client_conf.h"
#include "tools/bkctl/command.h"

namespace bk::bkctl {
namespace {

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

// Flags that may come before the command, as operators type them
// (`bkctl --metadata-uri URI listbookies`); they are passed on after it.
// Only these: a switch before the command could not be told from a flag
// taking the command's name as its value.
constexpr const char* kLeadingValueFlags[] = {"metadata-uri", "tls-ca-file",
                                              "tls-cert-file", "tls-key-file",
                                              "tls-server-name"};

// Moves the leading global flags of `args` behind the command words;
// kInvalidArgument for any other flag there.
absl::StatusOr<std::vector<std::string>> MoveLeadingFlags(
    const std::vector<std::string>& args) {
  std::vector<std::string> leading;
  size_t i = 0;
  while (i < args.size() && absl::StartsWith(args[i], "--") &&
         args[i] != "--help") {
    const std::string& arg = args[i];
    const size_t eq = arg.find('=');
    const std::string name =
        arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    bool known = false;
    for (const char* f : kLeadingValueFlags) known = known || name == f;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name,
          " cannot come before the command (only --metadata-uri and the "
          "--tls-* flags can)"));
    }
    leading.push_back(arg);
    if (eq == std::string::npos) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      leading.push_back(args[++i]);
    }
    ++i;
  }
  std::vector<std::string> out(args.begin() + i, args.end());
  // The command is one or two words; the flags go after them, which every
  // command's parser accepts (a command's positional words come first).
  size_t words = 0;
  while (words < out.size() && words < 2 &&
         !absl::StartsWith(out[words], "--")) {
    ++words;
  }
  out.insert(out.begin() + words, leading.begin(), leading.end());
  return out;
}

int Main(const std::vector<std::string>& raw) {
  const std::vector<Command> commands = AllCommands();
  auto conf = TakeClientConfFlag(raw);
  if (!conf.ok()) {
    std::cerr << "bkctl: " << conf.status().message() << "\n";
    return kExitUsage;
  }
  auto moved = MoveLeadingFlags(*conf);
  if (!moved.ok()) {
    std::cerr << "bkctl: " << moved.status().message() << "\n";
    return kExitUsage;
  }
  const std::vector<std::string>& args = *moved;
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
  // As the bookie's and bkbench's main() do: Debian's Abseil checks every
  // Mutex acquisition for lock-order cycles unless told not to, a cost an
  // operator's read of a long ledger should not pay (1 % of `ledger read`).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // The malloc settings client/malloc_tuning.h advises (`ledger read`).
  bk::client::TuneMallocForClient();
  return bk::bkctl::Main(std::vector<std::string>(argv + 1, argv + argc));
}
