// ChildProcess: a program this process starts and must not leave behind.
//
// The child runs in its own process group with stdout and stderr appended to
// a log file, and gets `death_signal` if this process dies first
// (PR_SET_PDEATHSIG), so a crashed or killed parent leaves no orphans.
// Not thread-safe; one owner. The destructor kills (SIGKILL) a child still
// running and reaps it.

#ifndef BK_TOOLS_LOCALCLUSTER_CHILD_PROCESS_H_
#define BK_TOOLS_LOCALCLUSTER_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::localcluster {

class ChildProcess {
 public:
  struct Options {
    std::vector<std::string> argv;  // argv[0] is the program (PATH searched)
    std::string log_path;           // stdout+stderr appended here
    int death_signal = 9;           // sent to the child if we die (SIGKILL)
  };

  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(Options options);
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // True while the child has not exited (reaps it if it has).
  bool Running();
  // Exit status as from waitpid once it has exited; -1 while running.
  int exit_status() const { return status_; }
  void Signal(int sig);
  // Waits up to `timeout` for the child to exit; true if it did.
  bool Wait(absl::Duration timeout);
  // SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status.
  int Stop(absl::Duration grace);

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int status_ = -1;
};

// True if no socket listens on `port` (any address), so a server could bind
// it; connections of an earlier run in TIME_WAIT do not count.
bool PortFree(int port);

// `name` in the directory of this process's executable (/proc/self/exe), as
// the tools find the `bookie` built beside them; "./name" if that cannot be
// read.
std::string BesideSelf(const std::string& name);

}  // namespace bk::localcluster

#endif  // BK_TOOLS_LOCALCLUSTER_CHILD_PROCESS_H_
