#include "test/support/net_namespace.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "test/support/bookie_process.h"

namespace bk::testing {
namespace {

// Every `ip` call is bounded; they take milliseconds.
constexpr absl::Duration kIpTimeout = absl::Seconds(20);
// Serialises the choice of subnets between concurrent test processes.
constexpr char kLockFile[] = "/run/bk-test-netns.lock";
constexpr char kNet[] = "10.213.";

std::string IpBinary() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

absl::StatusOr<std::string> IpOutput(const std::vector<std::string>& args) {
  const std::string ip = IpBinary();
  if (ip.empty()) return absl::UnavailableError("no `ip` command found");
  auto r = RunProcess(ip, args, kIpTimeout);
  std::string cmd = "ip";
  for (const auto& a : args) absl::StrAppend(&cmd, " ", a);
  if (!r.ok()) return absl::InternalError(cmd + ": " + r.status().ToString());
  if (r->exit.signal != 0 || r->exit.exit_code != 0) {
    return absl::InternalError(
        absl::StrCat(cmd, " exited ", r->exit.exit_code, ": ", r->err));
  }
  return r->out;
}

// The pid in a name "<prefix><pid><rest>", or -1.
long PidIn(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return -1;
  size_t i = prefix.size(), j = i;
  while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])))
    ++j;
  if (j == i || j == name.size()) return -1;  // no pid, or nothing after it
  return std::atol(name.substr(i, j - i).c_str());
}

bool Stale(long pid) {
  if (pid == getpid()) return true;  // a dead run had our pid
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Third octets of 10.213.x.0/24 already used on the host.
std::set<int> UsedSubnets() {
  std::set<int> used;
  for (const auto& args : {std::vector<std::string>{"-o", "-4", "addr"},
                           std::vector<std::string>{"-4", "route"}}) {
    auto out = IpOutput(args);
    if (!out.ok()) continue;
    size_t pos = 0;
    while ((pos = out->find(kNet, pos)) != std::string::npos) {
      pos += sizeof(kNet) - 1;
      used.insert(std::atoi(out->c_str() + pos));
    }
  }
  return used;
}

// An exclusive lock on kLockFile for its lifetime.
class FileLock {
 public:
  FileLock() : fd_(open(kLockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }

 private:
  int fd_;
};

}  // namespace

absl::Status RunIp(const std::vector<std::string>& args) {
  return IpOutput(args).status();
}

absl::Status NetNamespace::Probe() {
  if (geteuid() != 0) {
    return absl::PermissionDeniedError(
        "not root: network namespaces need CAP_NET_ADMIN");
  }
  if (IpBinary().empty()) return absl::UnavailableError("no `ip` command");
  // What a probe killed half-way left behind (its pid is dead, or ours).
  RemoveStale("bkprobe");
  RemoveStale("bkpr");
  const std::string ns = absl::StrCat("bkprobe", getpid());
  const std::string a = absl::StrCat("bkpr", getpid(), "a");
  const std::string b = absl::StrCat("bkpr", getpid(), "b");
  absl::Status s = RunIp({"netns", "add", ns});
  if (!s.ok()) return absl::UnavailableError("ip netns add: " + s.ToString());
  s = RunIp({"link", "add", a, "type", "veth", "peer", "name", b});
  if (s.ok()) s = RunIp({"link", "set", b, "netns", ns});
  (void)RunIp({"link", "del", a});
  (void)RunIp({"netns", "del", ns});
  if (!s.ok()) return absl::UnavailableError("veth pair: " + s.ToString());
  return absl::OkStatus();
}

int NetNamespace::RemoveStale(const std::string& prefix) {
  int removed = 0;
  // Host ends first: deleting one end of a veth pair removes both.
  if (auto links = IpOutput({"-o", "link"}); links.ok()) {
    std::istringstream in(*links);
    std::string line;
    while (std::getline(in, line)) {
      // "7: <name>@if6: <...>"
      const size_t colon = line.find(": ");
      if (colon == std::string::npos) continue;
      std::string name = line.substr(colon + 2);
      name = name.substr(0, name.find_first_of("@:"));
      const long pid = PidIn(name, prefix);
      if (pid > 0 && Stale(pid)) (void)RunIp({"link", "del", name});
    }
  }
  if (auto list = IpOutput({"netns", "list"}); list.ok()) {
    std::istringstream in(*list);
    std::string name;
    std::string line;
    while (std::getline(in, line)) {
      name = line.substr(0, line.find(' '));
      const long pid = PidIn(name, prefix);
      if (pid > 0 && Stale(pid) && RunIp({"netns", "del", name}).ok())
        ++removed;
    }
  }
  return removed;
}

absl::StatusOr<std::unique_ptr<NetNamespace>> NetNamespace::Create(
    const std::string& prefix, int index) {
  if (prefix.empty() || prefix.size() > 4) {
    return absl::InvalidArgumentError("prefix: 1 to 4 characters");
  }
  FileLock lock;
  // Once per process and prefix: later calls would take our own
  // namespaces (named with our pid) for a dead run's.
  static absl::Mutex cleaned_mu;
  static std::set<std::string> cleaned ABSL_GUARDED_BY(cleaned_mu);
  {
    absl::MutexLock l(&cleaned_mu);
    if (cleaned.insert(prefix).second) RemoveStale(prefix);
  }
  std::unique_ptr<NetNamespace> n(new NetNamespace());
  const std::string id = absl::StrCat(prefix, getpid());
  n->name_ = absl::StrCat(id, "-", index);
  n->host_if_ = absl::StrCat(id, "h", index);
  n->ns_if_ = absl::StrCat(id, "n", index);
  if (n->host_if_.size() > 15) {
    return absl::InvalidArgumentError("interface name too long: " +
                                      n->host_if_);
  }
  const std::set<int> used = UsedSubnets();
  int subnet = -1;
  for (int k = 0; k < 250; ++k) {
    const int c = 1 + (getpid() * 7 + index + k) % 250;
    if (!used.count(c)) {
      subnet = c;
      break;
    }
  }
  if (subnet < 0) return absl::ResourceExhaustedError("no free 10.213.x.0/24");
  n->host_address_ = absl::StrCat(kNet, subnet, ".1");
  n->ns_address_ = absl::StrCat(kNet, subnet, ".2");

  if (absl::Status s = RunIp({"netns", "add", n->name_}); !s.ok()) return s;
  n->created_ = true;  // from here the destructor cleans up
  const std::vector<std::vector<std::string>> steps = {
      {"link", "add", n->host_if_, "type", "veth", "peer", "name", n->ns_if_},
      {"link", "set", n->ns_if_, "netns", n->name_},
      {"addr", "add", n->host_address_ + "/24", "dev", n->host_if_},
      {"link", "set", n->host_if_, "up"},
      {"-n", n->name_, "addr", "add", n->ns_address_ + "/24", "dev", n->ns_if_},
      {"-n", n->name_, "link", "set", "lo", "up"},
      {"-n", n->name_, "link", "set", n->ns_if_, "up"},
      {"-n", n->name_, "route", "add", "default", "via", n->host_address_},
  };
  for (const auto& step : steps) {
    if (absl::Status s = RunIp(step); !s.ok()) return s;
  }
  return n;
}

NetNamespace::~NetNamespace() {
  if (!created_) return;
  (void)RunIp({"link", "del", host_if_});
  (void)RunIp({"netns", "del", name_});
}

absl::Status NetNamespace::Partition() {
  if (partitioned_) return absl::OkStatus();
  absl::Status s = RunIp({"-n", name_, "link", "set", ns_if_, "down"});
  if (s.ok()) partitioned_ = true;
  return s;
}

absl::Status NetNamespace::Heal() {
  if (!partitioned_) return absl::OkStatus();
  // Taking the link down dropped its routes; the default one comes back
  // by hand, the connected one with the link.
  absl::Status s = RunIp({"-n", name_, "link", "set", ns_if_, "up"});
  if (s.ok()) {
    s = RunIp(
        {"-n", name_, "route", "replace", "default", "via", host_address_});
  }
  if (s.ok()) partitioned_ = false;
  return s;
}

}  // namespace bk::testing
