#include "test/support/zk_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "test/support/free_port.h"

namespace bk::test {
namespace {

constexpr absl::Duration kPollInterval = absl::Milliseconds(20);

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

bool Exited(pid_t pid) {
  int status;
  return waitpid(pid, &status, WNOHANG) == pid;
}

}  // namespace

absl::StatusOr<std::string> FourLetterWord(int port, const std::string& word,
                                           absl::Duration timeout) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError(std::strerror(errno));
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int e = errno;
    close(fd);
    return absl::UnavailableError(std::strerror(e));
  }
  std::string answer;
  if (write(fd, word.data(), word.size()) ==
      static_cast<ssize_t>(word.size())) {
    const absl::Time deadline = absl::Now() + timeout;
    char buf[4096];
    for (;;) {
      pollfd p = {fd, POLLIN, 0};
      const int ms =
          static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
      if (ms <= 0 || poll(&p, 1, ms) <= 0) break;
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      answer.append(buf, n);
    }
  }
  close(fd);
  return answer;
}

absl::StatusOr<std::unique_ptr<ZkServer>> ZkServer::Start(Options options) {
  std::unique_ptr<ZkServer> s(new ZkServer());
  s->options_ = options;
  std::string tmpl = (std::filesystem::temp_directory_path() / "bk-zk-XXXXXX");
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp: ", std::strerror(errno)));
  }
  s->dir_ = tmpl;
  absl::StatusOr<int> port = bk::testing::PickFreePort();
  if (!port.ok()) return port.status();
  s->port_ = *port;
  const std::string cfg = s->dir_ + "/zoo.cfg";
  {
    std::ofstream out(cfg);
    out << "tickTime=" << options.tick_time_ms << "\n"
        << "dataDir=" << s->dir_ << "/data\n"
        << "clientPort=" << s->port_ << "\n"
        << "clientPortAddress=" << options.listen_address << "\n"
        << "admin.enableServer=false\n"
        << "4lw.commands.whitelist=srvr,ruok,mntr\n"
        << "maxClientCnxns=0\n";
    if (!out) return absl::InternalError("cannot write " + cfg);
  }
  const std::string java = Env("BK_JAVA", "java");
  const std::string classpath =
      Env("BK_ZK_CLASSPATH",
          "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:"
          "/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-simple.jar");
  const std::string log = s->dir_ + "/zookeeper.log";

  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(std::strerror(errno));
  if (pid == 0) {
    // Do not outlive the test if it dies without stopping us.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execlp(java.c_str(), java.c_str(), "-Xmx256m", "-cp", classpath.c_str(),
           "org.apache.zookeeper.server.ZooKeeperServerMain", cfg.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  s->pid_ = pid;

  const absl::Time deadline = absl::Now() + options.start_timeout;
  while (absl::Now() < deadline) {
    if (Exited(pid)) {
      s->pid_ = -1;
      return absl::InternalError(
          absl::StrCat("ZooKeeper server exited during start-up; see ", log));
    }
    absl::StatusOr<std::string> a =
        FourLetterWord(s->port_, "srvr", absl::Seconds(1));
    if (a.ok() && a->find("Mode:") != std::string::npos) return s;
    absl::SleepFor(kPollInterval);  // polling interval, bounded by deadline
  }
  return absl::DeadlineExceededError(
      absl::StrCat("ZooKeeper server not serving within ",
                   absl::FormatDuration(options.start_timeout), "; see ", log));
}

ZkServer::~ZkServer() {
  Stop();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::string ZkServer::hosts() const { return hosts("127.0.0.1"); }

std::string ZkServer::hosts(const std::string& address) const {
  return absl::StrCat(address, ":", port_);
}

void ZkServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const absl::Time deadline = absl::Now() + options_.stop_timeout;
  while (absl::Now() < deadline) {
    if (Exited(pid_)) {
      pid_ = -1;
      return;
    }
    absl::SleepFor(kPollInterval);  // polling interval, bounded
  }
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

namespace {

struct ConnectState {
  absl::Mutex mu;
  int state ABSL_GUARDED_BY(mu) = 0;
};

void ExpiryWatcher(zhandle_t*, int type, int state, const char*, void* ctx) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* cs = static_cast<ConnectState*>(ctx);
  absl::MutexLock lock(&cs->mu);
  cs->state = state;
}

}  // namespace

absl::Status ExpireZkSession(const std::string& hosts, const clientid_t& id,
                             absl::Duration timeout) {
  ConnectState cs;
  zhandle_t* zh = zookeeper_init(
      hosts.c_str(), &ExpiryWatcher,
      static_cast<int>(absl::ToInt64Milliseconds(timeout)), &id, &cs, 0);
  if (zh == nullptr) return absl::InternalError(std::strerror(errno));
  bool connected;
  {
    absl::MutexLock lock(&cs.mu);
    auto done = [&cs]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(cs.mu) {
      return cs.state == ZOO_CONNECTED_STATE ||
             cs.state == ZOO_EXPIRED_SESSION_STATE;
    };
    cs.mu.AwaitWithTimeout(absl::Condition(&done), timeout);
    connected = cs.state == ZOO_CONNECTED_STATE;
  }
  // Closing a connected handle sends closeSession and waits for the answer.
  zookeeper_close(zh);
  if (!connected) {
    return absl::UnavailableError("could not join the session to expire it");
  }
  return absl::OkStatus();
}

}  // namespace bk::test
