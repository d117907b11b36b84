// bkbench's commands; each takes its arguments (after the command name) and
// returns the process exit code (0 ok, 1 failure, 2 bad flags).

#ifndef BK_TOOLS_BKBENCH_COMMANDS_H_
#define BK_TOOLS_BKBENCH_COMMANDS_H_

#include <string>
#include <vector>

namespace bk::bkbench {

inline constexpr int kExitUsage = 2;  // bad flags, as bkctl

int WriteCommand(const std::vector<std::string>& args);
int ScenarioCommand(const std::vector<std::string>& args);
int EchoCommand(const std::vector<std::string>& args);
// The client's range reads against the bare stream (read_command.cc).
int ReadCommand(const std::vector<std::string>& args);
// Repair throughput of autorecovery (repair_command.cc).
int RepairCommand(const std::vector<std::string>& args);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_COMMANDS_H_
