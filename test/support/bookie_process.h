// BookieProcess: one real `bookie` process for integration tests, started
// and stopped by the test itself.
//
// Start() forks and execs the bookie binary with --key=value flags: the
// given ones, plus bookiePort=0 and httpServerPort=0 (free ports picked by
// the bookie) and journal/ledger directories under the process's own root
// directory unless the flags name others. The child's stdout and stderr go
// to <root>/bookie.<n>.log (n counts launches), so every restart has its
// own log. WaitReady() polls that log for the "serving gRPC on P, HTTP on Q"
// line (the real ports) and then GET /ready until it answers 200, bounded
// by a timeout; it fails early, with the log's tail, if the process exits.
//
// The child is started with PR_SET_PDEATHSIG(SIGKILL): if the thread that
// called Start()/Restart() exits (a crashed test), the bookie dies too.
// Call them from the test's main thread.
//
// Lifetime: the destructor SIGKILLs a process still running and reaps it;
// the root directory belongs to the caller (usually a TempDir) and is kept.
// Not thread-safe; one owner.

#ifndef BK_TEST_SUPPORT_BOOKIE_PROCESS_H_
#define BK_TEST_SUPPORT_BOOKIE_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "test/support/free_port.h"   // PickFreePort
#include "test/support/poll_until.h"  // PollUntil, for the users of this

namespace bk::testing {

struct BookieProcessOptions {
  std::string binary;     // path of the `bookie` executable
  std::string root;       // existing directory for dirs and logs
  std::string bookie_id;  // required: ports are random
  std::string metadata_uri;
  // Extra --key=value flags; they win over the defaults above.
  std::map<std::string, std::string> flags;
  absl::Duration ready_timeout = absl::Seconds(30);
};

// Outcome of a process run to its end.
struct ProcessExit {
  int exit_code = -1;  // valid when signal == 0
  int signal = 0;      // the signal that killed it, or 0
};

class BookieProcess {
 public:
  // Launches the bookie and waits until it is ready.
  static absl::StatusOr<std::unique_ptr<BookieProcess>> Start(
      BookieProcessOptions options);
  // Launches without waiting (for a start expected to fail).
  static absl::StatusOr<std::unique_ptr<BookieProcess>> Launch(
      BookieProcessOptions options);
  ~BookieProcess();

  // Polls until the bookie logs its ports and /ready answers 200.
  absl::Status WaitReady(absl::Duration timeout);
  // Sends `sig` to the process (no-op once it has exited).
  void Signal(int sig);
  // Waits for the process to exit, bounded; reaps it.
  absl::StatusOr<ProcessExit> WaitExit(absl::Duration timeout);
  // SIGKILLs and reaps.
  void Kill();
  // Launches again with the same options (same dirs), after the previous
  // process has exited; `flags` overrides options().flags for this and
  // later launches. Waits until ready unless wait is false.
  absl::Status Restart(std::map<std::string, std::string> flags = {},
                       bool wait = true);

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int grpc_port() const { return grpc_port_; }
  int http_port() const { return http_port_; }
  std::string grpc_target() const;  // "127.0.0.1:<grpc port>"
  const BookieProcessOptions& options() const { return options_; }
  std::string journal_dir() const;
  std::string ledger_dir() const;

  // The current launch's combined stdout/stderr.
  std::string Log() const;
  const std::string& log_path() const { return log_path_; }

 private:
  explicit BookieProcess(BookieProcessOptions options)
      : options_(std::move(options)) {}
  absl::Status DoLaunch();

  BookieProcessOptions options_;
  pid_t pid_ = -1;
  int launches_ = 0;
  int grpc_port_ = 0;
  int http_port_ = 0;
  std::string log_path_;
};

// Runs `binary args...` to completion (bounded), capturing stdout and
// stderr separately. For --help, --print-config, format, refused starts.
struct RunResult {
  ProcessExit exit;
  std::string out;
  std::string err;
};
absl::StatusOr<RunResult> RunProcess(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout);

// Starts `binary args...` with stdout and stderr appended to `log_path`,
// under PR_SET_PDEATHSIG(SIGKILL), and returns its pid. For helper servers
// (Prometheus). Stop it with StopProcess.
absl::StatusOr<pid_t> SpawnProcess(const std::string& binary,
                                   const std::vector<std::string>& args,
                                   const std::string& log_path);
// SIGTERM, then SIGKILL after `grace`; reaps.
void StopProcess(pid_t pid, absl::Duration grace = absl::Seconds(5));

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_BOOKIE_PROCESS_H_
