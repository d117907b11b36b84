#include "test/support/bookie_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "test/support/child_env.h"
#include "test/support/free_port.h"
#include "test/support/http_get.h"

namespace bk::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tail(const std::string& text, size_t n = 2000) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

ProcessExit Decode(int status) {
  ProcessExit e;
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

// fork + exec with stdout to out_fd and stderr to err_fd. Everything the
// child needs is prepared before fork: between fork and exec only
// async-signal-safe calls (the test process has gRPC threads).
absl::StatusOr<pid_t> Spawn(const std::string& binary,
                            const std::vector<std::string>& args, int out_fd,
                            int err_fd) {
  std::vector<std::string> all;
  all.push_back(binary);
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = ChildEnvironment();
  std::vector<char*> envp = ChildEnvp(env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    // Signals blocked in the test must not stay blocked in the bookie.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(binary.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BookieProcess>> BookieProcess::Launch(
    BookieProcessOptions options) {
  if (options.bookie_id.empty() || options.root.empty() ||
      options.binary.empty()) {
    return absl::InvalidArgumentError("binary, root and bookie_id are needed");
  }
  std::unique_ptr<BookieProcess> p(new BookieProcess(std::move(options)));
  if (absl::Status s = p->DoLaunch(); !s.ok()) return s;
  return p;
}

absl::StatusOr<std::unique_ptr<BookieProcess>> BookieProcess::Start(
    BookieProcessOptions options) {
  auto p = Launch(std::move(options));
  if (!p.ok()) return p.status();
  if (absl::Status s = (*p)->WaitReady((*p)->options_.ready_timeout); !s.ok()) {
    return s;
  }
  return p;
}

BookieProcess::~BookieProcess() { Kill(); }

std::string BookieProcess::journal_dir() const {
  auto it = options_.flags.find("journalDirectories");
  return it != options_.flags.end() ? it->second : options_.root + "/journal";
}

std::string BookieProcess::ledger_dir() const {
  auto it = options_.flags.find("ledgerDirectories");
  return it != options_.flags.end() ? it->second : options_.root + "/ledgers";
}

std::string BookieProcess::grpc_target() const {
  return absl::StrCat("127.0.0.1:", grpc_port_);
}

absl::Status BookieProcess::DoLaunch() {
  if (pid_ > 0) return absl::FailedPreconditionError("still running");
  std::map<std::string, std::string> flags = {
      {"bookieId", options_.bookie_id},
      {"metadataServiceUri", options_.metadata_uri},
      {"bookiePort", "0"},
      {"httpServerPort", "0"},
      {"listeningInterface", "127.0.0.1"},
      {"journalDirectories", options_.root + "/journal"},
      {"ledgerDirectories", options_.root + "/ledgers"},
      {"zkTimeout", "2000"},
      {"shutdownTimeoutMs", "10000"},
      {"baseMetricMonitorEnabled", "false"},
      {"journalPreAllocSizeMB", "1"},
      {"dbStorage_writeCacheMaxSizeMb", "8"},
      {"dbStorage_readAheadCacheMaxSizeMb", "4"},
  };
  for (const auto& [k, v] : options_.flags) flags[k] = v;
  std::vector<std::string> args;
  for (const auto& [k, v] : flags)
    args.push_back(absl::StrCat("--", k, "=", v));

  ++launches_;
  log_path_ = absl::StrCat(options_.root, "/bookie.", launches_, ".log");
  const int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("open ", log_path_, ": ", std::strerror(errno)));
  }
  auto pid = Spawn(options_.binary, args, fd, fd);
  close(fd);
  if (!pid.ok()) return pid.status();
  pid_ = *pid;
  grpc_port_ = 0;
  http_port_ = 0;
  return absl::OkStatus();
}

absl::Status BookieProcess::WaitReady(absl::Duration timeout) {
  static const std::regex kServing(R"(serving gRPC on (\d+), HTTP on (\d+))");
  bool exited = false;
  ProcessExit how;
  const bool ok = PollUntil(
      [&] {
        if (pid_ <= 0) {
          exited = true;
          return true;
        }
        int status;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          exited = true;
          how = Decode(status);
          return true;
        }
        if (grpc_port_ == 0) {
          std::smatch m;
          const std::string log = Log();
          if (!std::regex_search(log, m, kServing)) return false;
          grpc_port_ = std::stoi(m[1]);
          http_port_ = std::stoi(m[2]);
        }
        return HttpGet(http_port_, "/ready").status == 200;
      },
      timeout);
  if (exited) {
    return absl::FailedPreconditionError(
        absl::StrCat("bookie exited before ready (code ", how.exit_code,
                     ", signal ", how.signal, "); log:\n", Tail(Log())));
  }
  if (!ok) {
    return absl::DeadlineExceededError(
        absl::StrCat("bookie not ready after ", absl::FormatDuration(timeout),
                     "; log:\n", Tail(Log())));
  }
  return absl::OkStatus();
}

void BookieProcess::Signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

absl::StatusOr<ProcessExit> BookieProcess::WaitExit(absl::Duration timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError("not running");
  ProcessExit how;
  const bool ok = PollUntil(
      [&] {
        int status;
        if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
        how = Decode(status);
        return true;
      },
      timeout, absl::Milliseconds(10));
  if (!ok) {
    return absl::DeadlineExceededError(absl::StrCat(
        "bookie still running after ", absl::FormatDuration(timeout)));
  }
  pid_ = -1;
  return how;
}

void BookieProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

absl::Status BookieProcess::Restart(std::map<std::string, std::string> flags,
                                    bool wait) {
  for (const auto& [k, v] : flags) options_.flags[k] = v;
  if (absl::Status s = DoLaunch(); !s.ok()) return s;
  return wait ? WaitReady(options_.ready_timeout) : absl::OkStatus();
}

std::string BookieProcess::Log() const { return ReadFile(log_path_); }

absl::StatusOr<pid_t> SpawnProcess(const std::string& binary,
                                   const std::vector<std::string>& args,
                                   const std::string& log_path) {
  const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("open ", log_path, ": ", std::strerror(errno)));
  }
  auto pid = Spawn(binary, args, fd, fd);
  close(fd);
  return pid;
}

void StopProcess(pid_t pid, absl::Duration grace) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  const bool gone = PollUntil(
      [&] {
        int status;
        return waitpid(pid, &status, WNOHANG) == pid;
      },
      grace, absl::Milliseconds(10));
  if (!gone) {
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
  }
}

absl::StatusOr<RunResult> RunProcess(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout) {
  char out_tmpl[] = "/tmp/bkrun.out.XXXXXX";
  char err_tmpl[] = "/tmp/bkrun.err.XXXXXX";
  const int out_fd = mkstemp(out_tmpl);
  const int err_fd = mkstemp(err_tmpl);
  if (out_fd < 0 || err_fd < 0) return absl::InternalError("mkstemp");
  auto pid = Spawn(binary, args, out_fd, err_fd);
  close(out_fd);
  close(err_fd);
  RunResult r;
  bool done = false;
  if (pid.ok()) {
    done = PollUntil(
        [&] {
          int status;
          if (waitpid(*pid, &status, WNOHANG) != *pid) return false;
          r.exit = Decode(status);
          return true;
        },
        timeout, absl::Milliseconds(5));
    if (!done) {
      kill(*pid, SIGKILL);
      int status;
      waitpid(*pid, &status, 0);
    }
  }
  r.out = ReadFile(out_tmpl);
  r.err = ReadFile(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  if (!pid.ok()) return pid.status();
  if (!done) {
    return absl::DeadlineExceededError(absl::StrCat(
        binary, " still running after ", absl::FormatDuration(timeout),
        "; stderr:\n", Tail(r.err)));
  }
  return r;
}

}  // namespace bk::testing
