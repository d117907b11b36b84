// ZkServer: a standalone ZooKeeper server for tests, started and stopped by
// the test itself.
//
// Start() writes a zoo.cfg into a fresh temporary directory (dataDir there,
// clientPort a free loopback port, on listen_address, admin server off,
// four-letter words srvr/ruok/mntr allowed, a short tickTime so that session
// timeouts are short), runs `java ... ZooKeeperServerMain zoo.cfg` as a child
// process and polls `srvr` until the answer holds "Mode:" (bounded by
// start_timeout). The destructor stops it by pid: SIGTERM, then SIGKILL after
// stop_timeout, and removes the directory. The server's log is
// <dir>/zookeeper.log.
//
// Environment overrides: BK_JAVA (the java binary, default "java"),
// BK_ZK_CLASSPATH (default: the Debian jars in /usr/share/java).
//
// The server is killed if the thread that called Start() exits (it is
// started with PR_SET_PDEATHSIG so that a crashed test leaves no server
// behind): call Start() on a thread that outlives the server, such as the
// test's main thread.
//
// Not thread-safe; one owner.

#ifndef BK_TEST_SUPPORT_ZK_SERVER_H_
#define BK_TEST_SUPPORT_ZK_SERVER_H_

#include <sys/types.h>
#include <zookeeper/zookeeper.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::test {

class ZkServer {
 public:
  struct Options {
    int tick_time_ms = 100;  // sessions may time out from 2 x tick
    // clientPortAddress. "0.0.0.0" also takes clients in other network
    // namespaces (through the host's address on their veth link);
    // hosts() and the four-letter words still use 127.0.0.1.
    std::string listen_address = "127.0.0.1";
    absl::Duration start_timeout = absl::Seconds(60);
    absl::Duration stop_timeout = absl::Seconds(10);
  };

  static absl::StatusOr<std::unique_ptr<ZkServer>> Start(Options options);
  static absl::StatusOr<std::unique_ptr<ZkServer>> Start() {
    return Start(Options());
  }
  ~ZkServer();

  // "127.0.0.1:<port>"
  std::string hosts() const;
  // "<address>:<port>": the server seen at another of its addresses (with
  // listen_address "0.0.0.0").
  std::string hosts(const std::string& address) const;
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }

  // Stops the server (idempotent).
  void Stop();

 private:
  ZkServer() = default;

  Options options_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// Sends a four-letter word to 127.0.0.1:`port` and returns the answer.
absl::StatusOr<std::string> FourLetterWord(int port, const std::string& word,
                                           absl::Duration timeout);

// Expires the ZooKeeper session `id` on `hosts` from outside its owner: opens
// a second handle on the same session (id and password), waits until it is
// connected, and closes it, which ends the session on the server. Returns
// once the server has closed it.
absl::Status ExpireZkSession(const std::string& hosts, const clientid_t& id,
                             absl::Duration timeout);

// Starts a server for the whole test process; a failed start prints why and
// aborts (no test can run).
inline std::unique_ptr<ZkServer> StartOrAbort(ZkServer::Options options) {
  auto s = ZkServer::Start(options);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
    std::abort();
  }
  return *std::move(s);
}

// The one ZooKeeper server of this test process, started on first use and
// stopped at exit. Its tickTime is 100 ms, and ZooKeeper grants no session
// more than 20 ticks: a session lasts at most 2 s, whatever is asked.
inline ZkServer& SharedZkServer() {
  static std::unique_ptr<ZkServer> server = StartOrAbort({});
  return *server;
}

// The same with a tickTime of 3 s: sessions of 6 to 60 s, so that a
// suspended process with a long session stays registered.
inline ZkServer& LongSessionZkServer() {
  static std::unique_ptr<ZkServer> server =
      StartOrAbort({.tick_time_ms = 3000});
  return *server;
}

}  // namespace bk::test

#endif  // BK_TEST_SUPPORT_ZK_SERVER_H_
