#include "tools/localcluster/local_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/env.h"

namespace bk::localcluster {

absl::Status CheckBookieConfigLines(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    if (line.find('=') == std::string::npos || line.front() == '=') {
      return absl::InvalidArgumentError(
          absl::StrCat("--bookie-config: '", line, "' is not key=value"));
    }
  }
  return absl::OkStatus();
}

namespace {

// Sends `request` to 127.0.0.1:port and returns the answer ("" on error).
std::string Ask(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  struct timeval tv {
    1, 0
  };
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buf[2048];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, n);
  }
  ::close(fd);
  return out;
}

// The first port of `count` consecutive free ones, drawn at random in
// [20000, 60000); 0 when 200 draws found none.
int FreePortRange(int count) {
  std::random_device seed;
  std::mt19937 gen(seed());
  std::uniform_int_distribution<int> draw(20000, 60000 - count);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int base = draw(gen);
    bool free = true;
    for (int p = base; p < base + count && free; ++p) free = PortFree(p);
    if (free) return base;
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::StartOnFreePorts(
    LocalClusterOptions options, int attempts) {
  const bool pick_zookeeper = options.zookeeper_port == 0;
  const std::string dir = options.dir;
  absl::Status last = absl::InvalidArgumentError("attempts must be >= 1");
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const int n = options.bookies;
    const int base = FreePortRange((pick_zookeeper ? 1 : 0) + 2 * n);
    if (base == 0) return absl::UnavailableError("no free port range");
    int next = base;
    if (pick_zookeeper) options.zookeeper_port = next++;
    options.first_bookie_port = next;
    options.first_http_port = next + n;
    options.dir = absl::StrCat(dir, "-", attempt);
    auto c = Start(options);
    if (c.ok()) return c;
    last = c.status();
    if (absl::IsInvalidArgument(last)) return last;
  }
  return last;
}

absl::StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Start(
    LocalClusterOptions options) {
  if (options.bookies < 1 || options.racks < 1) {
    return absl::InvalidArgumentError("--bookies and --racks must be >= 1");
  }
  std::vector<std::pair<int, std::string>> ports = {
      {options.zookeeper_port, "ZooKeeper"}};
  for (int i = 0; i < options.bookies; ++i) {
    ports.push_back(
        {options.first_bookie_port + i, absl::StrCat("bookie-", i, " gRPC")});
    ports.push_back(
        {options.first_http_port + i, absl::StrCat("bookie-", i, " HTTP")});
  }
  for (const auto& [port, what] : ports) {
    if (!PortFree(port)) {
      return absl::UnavailableError(absl::StrCat(
          "port ", port, " (", what,
          ") is in use; stop what uses it or choose other ports "
          "(--zookeeper-port, --first-bookie-port, --first-http-port)"));
    }
  }
  std::unique_ptr<LocalCluster> c(new LocalCluster(std::move(options)));
  if (absl::Status s = c->StartZooKeeper(); !s.ok()) return s;
  const int started =
      c->options_.started_bookies < 0
          ? c->options_.bookies
          : std::min(c->options_.started_bookies, c->options_.bookies);
  for (int i = 0; i < started; ++i) {
    if (absl::Status s = c->StartBookie(i); !s.ok()) return s;
  }
  const absl::Time deadline = absl::Now() + c->options_.start_timeout;
  for (int i = 0; i < started; ++i) {
    if (absl::Status s = c->WaitReady(i, deadline); !s.ok()) return s;
  }
  return c;
}

LocalCluster::LocalCluster(LocalClusterOptions options)
    : options_(std::move(options)) {
  for (int i = 0; i < options_.bookies; ++i) {
    BookieEndpoint e;
    e.id = absl::StrCat("bookie-", i);
    e.rack = absl::StrCat("/region-1/rack-", i % options_.racks + 1);
    e.grpc_port = options_.first_bookie_port + i;
    e.http_port = options_.first_http_port + i;
    e.dir = absl::StrCat(options_.dir, "/", e.id);
    endpoints_.push_back(e);
  }
  bookies_.resize(options_.bookies);
}

LocalCluster::~LocalCluster() { Stop(); }

std::string LocalCluster::metadata_uri() const {
  return absl::StrCat("zk://127.0.0.1:", options_.zookeeper_port, "/ledgers");
}

absl::Status LocalCluster::StartZooKeeper() {
  Env* env = Env::Default();
  const std::string dir = options_.dir + "/zookeeper";
  if (absl::Status s = env->CreateDirRecursive(dir + "/data"); !s.ok()) {
    return s;
  }
  const std::string cfg = absl::StrCat(
      "tickTime=500\ndataDir=", dir,
      "/data\nclientPort=", options_.zookeeper_port,
      "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
      "4lw.commands.whitelist=srvr,ruok,mntr\nmaxClientCnxns=200\n");
  if (absl::Status s = env->WriteFileAtomic(dir + "/zoo.cfg", cfg); !s.ok()) {
    return s;
  }
  ChildProcess::Options o;
  o.argv = {options_.java,
            "-Xmx256m",
            "-cp",
            options_.zookeeper_classpath,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            dir + "/zoo.cfg"};
  o.log_path = dir + "/zookeeper.log";
  auto zk = ChildProcess::Start(o);
  if (!zk.ok()) return zk.status();
  zookeeper_ = std::move(*zk);
  const absl::Time deadline = absl::Now() + options_.start_timeout;
  while (absl::Now() < deadline) {
    if (!zookeeper_->Running()) {
      return absl::UnavailableError(absl::StrCat(
          "ZooKeeper exited at start; see ", o.log_path,
          " (is the zookeeper package and a Java runtime installed?)"));
    }
    // `ruok` answers before sessions are accepted; `srvr` with Mode: does not.
    if (absl::StrContains(Ask(options_.zookeeper_port, "srvr"), "Mode:")) {
      return absl::OkStatus();
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("ZooKeeper did not come up; see ", o.log_path));
}

absl::Status LocalCluster::StartBookie(int i) {
  const BookieEndpoint& e = endpoints_[i];
  Env* env = Env::Default();
  if (absl::Status s = env->CreateDirRecursive(e.dir); !s.ok()) return s;
  std::string conf = absl::StrCat(
      "bookieId=", e.id, "\nadvertisedAddress=127.0.0.1\n",
      "listeningInterface=127.0.0.1\nbookiePort=", e.grpc_port,
      "\nhttpServerPort=", e.http_port, "\nnetworkLocation=", e.rack,
      "\nmetadataServiceUri=", metadata_uri(), "\njournalDirectories=", e.dir,
      "/journal\nledgerDirectories=", e.dir, "/ledgers\n",
      // Small caches: several bookies share one machine. They share its
      // disk too, whose utilisation says nothing about any one of them:
      // each reports its own busy share instead.
      "dbStorage_writeCacheMaxSizeMb=32\ndbStorage_readAheadCacheMaxSizeMb=16"
      "\njournalDeviceShared=true\n");
  for (const auto& line : options_.extra_bookie_config) {
    absl::StrAppend(&conf, line, "\n");
  }
  for (const auto& [index, line] : options_.per_bookie_config) {
    if (index == i) absl::StrAppend(&conf, line, "\n");
  }
  if (absl::Status s = env->WriteFileAtomic(e.dir + "/bookie.conf", conf);
      !s.ok()) {
    return s;
  }
  ChildProcess::Options o;
  o.argv = {options_.bookie_binary, "--conf=" + e.dir + "/bookie.conf"};
  o.log_path = e.dir + "/bookie.log";
  o.death_signal = SIGTERM;  // a dying parent lets bookies drain
  auto p = ChildProcess::Start(o);
  if (!p.ok()) return p.status();
  bookies_[i] = std::move(*p);
  return absl::OkStatus();
}

absl::Status LocalCluster::WaitReady(int i, absl::Time deadline) {
  const BookieEndpoint& e = endpoints_[i];
  while (absl::Now() < deadline) {
    if (!bookies_[i]->Running()) {
      return absl::UnavailableError(
          absl::StrCat(e.id, " exited at start; see ", e.dir, "/bookie.log"));
    }
    std::string r = Ask(e.http_port,
                        "GET /ready HTTP/1.1\r\nHost: x\r\nConnection: "
                        "close\r\n\r\n");
    if (absl::StartsWith(r, "HTTP/1.1 200")) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::DeadlineExceededError(
      absl::StrCat(e.id, " not ready in time; see ", e.dir, "/bookie.log"));
}

void LocalCluster::KillBookie(int i) {
  if (bookies_[i]) {
    bookies_[i]->Signal(SIGKILL);
    bookies_[i]->Wait(absl::Seconds(10));
  }
}

int LocalCluster::StopBookie(int i) {
  return bookies_[i] ? bookies_[i]->Stop(absl::Seconds(35)) : -1;
}

absl::Status LocalCluster::RestartBookie(int i) {
  if (bookies_[i] && bookies_[i]->Running()) {
    return absl::FailedPreconditionError(endpoints_[i].id + " is running");
  }
  if (absl::Status s = StartBookie(i); !s.ok()) return s;
  return WaitReady(i, absl::Now() + options_.start_timeout);
}

bool LocalCluster::BookieRunning(int i) {
  return bookies_[i] && bookies_[i]->Running();
}

std::vector<pid_t> LocalCluster::RunningPids() {
  std::vector<pid_t> out;
  if (zookeeper_ && zookeeper_->Running()) out.push_back(zookeeper_->pid());
  for (auto& b : bookies_) {
    if (b && b->Running()) out.push_back(b->pid());
  }
  return out;
}

void LocalCluster::Stop() {
  // One SIGTERM each, all at once so they drain in parallel: a bookie
  // takes a second signal as "exit now", without its final flush.
  for (auto& b : bookies_) {
    if (b && b->Running()) b->Signal(SIGTERM);
  }
  for (auto& b : bookies_) {
    if (b && !b->Wait(absl::Seconds(35))) {
      b->Signal(SIGKILL);
      b->Wait(absl::Seconds(10));
    }
    b.reset();
  }
  if (zookeeper_) zookeeper_->Stop(absl::Seconds(10));
  zookeeper_.reset();
}

}  // namespace bk::localcluster
