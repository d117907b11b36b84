#include "tools/localcluster/child_process.h"

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

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace bk::localcluster {

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    Options options) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("no program to start");
  }
  int log = ::open(options.log_path.c_str(),
                   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    return absl::InternalError(absl::StrCat(
        "cannot open log ", options.log_path, ": ", std::strerror(errno)));
  }
  std::vector<char*> argv;
  for (auto& a : options.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, options.death_signal);
    if (::getppid() != parent) ::_exit(127);  // parent already gone
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(log, 1);
    ::dup2(log, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execvp(argv[0], argv.data());
    const char msg[] = "exec failed\n";
    (void)!::write(2, msg, sizeof(msg) - 1);
    ::_exit(127);
  }
  ::close(log);
  std::unique_ptr<ChildProcess> c(new ChildProcess());
  c->pid_ = pid;
  return c;
}

ChildProcess::~ChildProcess() {
  if (Running()) {
    Signal(SIGKILL);
    Wait(absl::Seconds(5));
  }
}

bool ChildProcess::Running() {
  if (pid_ < 0 || status_ != -1) return false;
  int st;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = st;
    return false;
  }
  return r == 0;
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0 && status_ == -1) ::kill(pid_, sig);
}

bool ChildProcess::Wait(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));  // no waitpid with a timeout
  }
  return true;
}

int ChildProcess::Stop(absl::Duration grace) {
  if (!Running()) return status_;
  Signal(SIGTERM);
  if (!Wait(grace)) {
    Signal(SIGKILL);
    Wait(absl::Seconds(10));
  }
  return status_;
}

bool PortFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  // As the servers bind: connections of a previous run in TIME_WAIT do not
  // make a port busy, only a listener does.
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

std::string BesideSelf(const std::string& name) {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "./" + name;
  const std::string self(buf, static_cast<size_t>(n));
  return self.substr(0, self.find_last_of('/') + 1) + name;
}

}  // namespace bk::localcluster
