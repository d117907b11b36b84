// NetNamespace: a Linux network namespace joined to the test's own (host)
// namespace by a veth pair, for tests that cut a process off the network.
//
//   host namespace                        namespace <name>
//   <host_if> 10.213.<subnet>.1/24  <-->  <ns_if> 10.213.<subnet>.2/24
//                                         lo up, default route via .1
//
// A server started inside the namespace (see BookieCluster's per-bookie
// `netns`) listens on ns_address(); the host reaches it there, and it
// reaches any host address (e.g. a ZooKeeper listening on 0.0.0.0) through
// host_address().
//
// Partition() takes the namespace's end of the pair down: packets between
// the two sides are dropped silently (the host end keeps its route but has
// no carrier, so nothing leaks out through the host's default route), as on
// a cut cable; open TCP connections see only timeouts. Heal() brings it
// back up and restores the default route.
//
// Names carry a prefix and the test's pid (namespace "<prefix><pid>-<i>",
// host end "<prefix><pid>h<i>"), and subnets are chosen under a lock file
// among those the host does not use, so
// parallel runs do not collide; Create() first removes what a dead run
// with the same prefix left behind (its pid no longer alive, or ours). The
// destructor removes the pair and the namespace. Everything is done with
// `ip`; Probe() says why namespaces cannot be used here (not root, no `ip`,
// `ip netns add` refused). Not thread-safe; one owner.

#ifndef BK_TEST_SUPPORT_NET_NAMESPACE_H_
#define BK_TEST_SUPPORT_NET_NAMESPACE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bk::testing {

class NetNamespace {
 public:
  // OK when this process may create namespaces and veth pairs; otherwise a
  // status whose message is the reason (for a test to skip with).
  static absl::Status Probe();

  // Creates namespace number `index` of this process under `prefix`
  // (lower-case letters, at most 4 characters: interface names are limited
  // to 15). The first call of the process for a prefix removes stale
  // namespaces of dead runs with that prefix.
  static absl::StatusOr<std::unique_ptr<NetNamespace>> Create(
      const std::string& prefix, int index);
  ~NetNamespace();
  NetNamespace(const NetNamespace&) = delete;
  NetNamespace& operator=(const NetNamespace&) = delete;

  const std::string& name() const { return name_; }  // for `ip netns exec`
  // The file setns(2) takes: /run/netns/<name>.
  std::string path() const { return "/run/netns/" + name_; }
  const std::string& host_if() const { return host_if_; }
  const std::string& host_address() const { return host_address_; }
  const std::string& ns_address() const { return ns_address_; }

  // Cuts the namespace off the host (silent drops both ways); idempotent.
  absl::Status Partition();
  // Joins it again; idempotent.
  absl::Status Heal();
  bool partitioned() const { return partitioned_; }

  // Removes namespaces and host interfaces named <prefix><pid>... whose pid
  // is not alive (or is ours: call it before creating any). Returns how
  // many namespaces it removed.
  static int RemoveStale(const std::string& prefix);

 private:
  NetNamespace() = default;

  std::string name_;
  std::string host_if_;
  std::string ns_if_;
  std::string host_address_;
  std::string ns_address_;
  bool created_ = false;
  bool partitioned_ = false;
};

// Runs `ip args...` (bounded); the error names the command and its stderr.
absl::Status RunIp(const std::vector<std::string>& args);

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_NET_NAMESPACE_H_
