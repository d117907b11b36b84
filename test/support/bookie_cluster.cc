#include "test/support/bookie_cluster.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/support/bookie_process.h"
#include "test/support/child_env.h"
#include "test/support/free_port.h"
#include "test/support/http_get.h"

namespace bk::test {
namespace {

// Bounded polls of a process or an endpoint wait this long between tries.
constexpr absl::Duration kPollInterval = absl::Milliseconds(20);

bool Reap(pid_t pid) {
  int status;
  return waitpid(pid, &status, WNOHANG) == pid;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BookieCluster>> BookieCluster::Start(
    Options options) {
  std::unique_ptr<BookieCluster> c(new BookieCluster(std::move(options)));
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "bk-cluster-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp: ", std::strerror(errno)));
  }
  c->root_ = tmpl;
  for (int i = 0; i < c->options_.bookies; ++i) {
    Bookie b;
    b.dir = absl::StrCat(c->root_, "/", c->id(i));
    std::filesystem::create_directories(b.dir);
    auto grpc = bk::testing::PickFreePort();
    auto http = bk::testing::PickFreePort();
    if (!grpc.ok()) return grpc.status();
    if (!http.ok()) return http.status();
    b.grpc_port = *grpc;
    b.http_port = *http;
    c->bookies_.push_back(b);
  }
  const absl::Time deadline = absl::Now() + c->options_.start_timeout;
  for (int i = 0; i < c->size(); ++i) {
    if (absl::Status s = c->Launch(i); !s.ok()) return s;
  }
  for (int i = 0; i < c->size(); ++i) {
    absl::Status s = c->AwaitReady(i, deadline);
    // A port picked free can be taken by another test's process before
    // the bookie binds it: pick new ones and launch that bookie again (at
    // first start only; a restart keeps its ports for its clients).
    for (int attempt = 0;
         attempt < 3 && !s.ok() && absl::StrContains(s.message(), "in use");
         ++attempt) {
      auto grpc = bk::testing::PickFreePort();
      auto http = bk::testing::PickFreePort();
      if (!grpc.ok()) return grpc.status();
      if (!http.ok()) return http.status();
      c->bookies_[i].grpc_port = *grpc;
      c->bookies_[i].http_port = *http;
      if (absl::Status l = c->Launch(i); !l.ok()) return l;
      s = c->AwaitReady(i, deadline);
    }
    if (!s.ok()) return s;
  }
  return c;
}

BookieCluster::~BookieCluster() {
  for (int i = 0; i < size(); ++i) StopOne(i);
  std::error_code ec;
  if (!root_.empty()) std::filesystem::remove_all(root_, ec);
}

int BookieCluster::IndexOf(const std::string& id) const {
  for (int i = 0; i < size(); ++i) {
    if (this->id(i) == id) return i;
  }
  return -1;
}

std::string BookieCluster::address(int i) const {
  return i < static_cast<int>(options_.networks.size())
             ? options_.networks[i].address
             : "127.0.0.1";
}

std::vector<std::string> BookieCluster::Flags(int i) const {
  const Bookie& b = bookies_[i];
  const Options::Network net = i < static_cast<int>(options_.networks.size())
                                   ? options_.networks[i]
                                   : Options::Network();
  std::vector<std::string> args = {
      "--bookieId=" + id(i),
      "--bookiePort=" + std::to_string(b.grpc_port),
      "--httpServerPort=" + std::to_string(b.http_port),
      "--listeningInterface=" + net.address,
      "--advertisedAddress=" + net.address,
      "--metadataServiceUri=" +
          (net.metadata_uri.empty() ? options_.metadata_uri : net.metadata_uri),
      "--journalDirectories=" + b.dir + "/journal",
      "--ledgerDirectories=" + b.dir + "/ledgers",
      "--zkTimeout=" + std::to_string(options_.zk_timeout_ms),
      "--journalPreAllocSizeMB=1",
      "--logLevel=warn",
  };
  if (!options_.racks.empty()) {
    args.push_back("--networkLocation=" +
                   options_.racks[i % options_.racks.size()]);
  }
  for (const auto& f : options_.extra_flags) args.push_back(f);
  for (const auto& f : b.extra_flags) args.push_back(f);
  return args;
}

absl::Status BookieCluster::Format(int i) {
  if (bookies_[i].pid > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("bookie ", id(i), " is running: stop it first"));
  }
  std::vector<std::string> args = {"format", "--yes", "--force"};
  for (auto& f : Flags(i)) args.push_back(std::move(f));
  auto run = bk::testing::RunProcess(options_.bookie_binary, args,
                                     options_.start_timeout);
  if (!run.ok()) return run.status();
  if (run->exit.exit_code != 0) {
    return absl::InternalError(absl::StrCat("bookie format of ", id(i),
                                            " failed: ", run->err, run->out));
  }
  return absl::OkStatus();
}

absl::Status BookieCluster::Launch(int i) {
  Bookie& b = bookies_[i];
  const Options::Network net = i < static_cast<int>(options_.networks.size())
                                   ? options_.networks[i]
                                   : Options::Network();
  std::vector<std::string> args = Flags(i);
  args.insert(args.begin(), options_.bookie_binary);
  const std::string log = b.dir + "/bookie.log";
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = bk::testing::ChildEnvironment();
  std::vector<char*> envp = bk::testing::ChildEnvp(env);
  int netns_fd = -1;
  if (!net.netns_path.empty()) {
    netns_fd = open(net.netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (netns_fd < 0) {
      return absl::InternalError(
          absl::StrCat("open ", net.netns_path, ": ", std::strerror(errno)));
    }
  }
  const pid_t pid = fork();
  if (pid < 0) {
    if (netns_fd >= 0) close(netns_fd);
    return absl::InternalError(std::strerror(errno));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) _exit(126);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  if (netns_fd >= 0) close(netns_fd);
  b.pid = pid;
  return absl::OkStatus();
}

bool BookieCluster::Ready(int i) const {
  return bookies_[i].pid > 0 &&
         bk::testing::HttpGet(bookies_[i].http_port, "/ready", true, address(i))
                 .status == 200;
}

absl::Status BookieCluster::AwaitReady(int i, absl::Time deadline) {
  while (absl::Now() < deadline) {
    if (Reap(bookies_[i].pid)) {
      bookies_[i].pid = -1;
      return absl::UnavailableError(absl::StrCat(
          "bookie ", id(i),
          " exited during start-up: ", Tail(bookies_[i].dir + "/bookie.log")));
    }
    if (Ready(i)) return absl::OkStatus();
    absl::SleepFor(kPollInterval);  // polling interval, bounded by deadline
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "bookie ", id(i),
      " not ready in time: ", Tail(bookies_[i].dir + "/bookie.log")));
}

absl::Status BookieCluster::Kill(int i) {
  Bookie& b = bookies_[i];
  if (b.pid <= 0) return absl::FailedPreconditionError("not running");
  kill(b.pid, SIGKILL);
  int status;
  waitpid(b.pid, &status, 0);
  b.pid = -1;
  return absl::OkStatus();
}

absl::Status BookieCluster::Suspend(int i) {
  if (bookies_[i].pid <= 0) return absl::FailedPreconditionError("not running");
  return kill(bookies_[i].pid, SIGSTOP) == 0
             ? absl::OkStatus()
             : absl::InternalError(std::strerror(errno));
}

absl::Status BookieCluster::Resume(int i) {
  if (bookies_[i].pid <= 0) return absl::FailedPreconditionError("not running");
  return kill(bookies_[i].pid, SIGCONT) == 0
             ? absl::OkStatus()
             : absl::InternalError(std::strerror(errno));
}

absl::Status BookieCluster::Restart(int i,
                                    std::vector<std::string> extra_flags) {
  bookies_[i].extra_flags = std::move(extra_flags);
  if (bookies_[i].pid > 0) {
    if (absl::Status s = Kill(i); !s.ok()) return s;
  }
  // Until the killed process's session expires its registration stands and
  // a new process refuses to start with the same id: retry until then.
  const absl::Time deadline = absl::Now() + options_.start_timeout;
  absl::Status last;
  while (absl::Now() < deadline) {
    if (absl::Status s = Launch(i); !s.ok()) return s;
    last = AwaitReady(i, deadline);
    if (last.ok()) return last;
    absl::SleepFor(10 * kPollInterval);  // back-off between launches
  }
  return last;
}

void BookieCluster::StopOne(int i) {
  Bookie& b = bookies_[i];
  if (b.pid <= 0) return;
  kill(b.pid, SIGCONT);
  kill(b.pid, SIGTERM);
  const absl::Time deadline = absl::Now() + options_.stop_timeout;
  while (absl::Now() < deadline) {
    if (Reap(b.pid)) {
      b.pid = -1;
      return;
    }
    absl::SleepFor(kPollInterval);  // polling interval, bounded
  }
  kill(b.pid, SIGKILL);
  int status;
  waitpid(b.pid, &status, 0);
  b.pid = -1;
}

}  // namespace bk::test
