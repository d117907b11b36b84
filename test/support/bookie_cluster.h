// BookieCluster: a local cluster of real `bookie` daemon processes for
// tests, started and stopped by the test itself.
//
// Start() gives each bookie a fresh directory (journal, ledgers, log),
// free loopback ports for gRPC and HTTP, an id ("bk0", "bk1", ...) and a
// rack, execs the daemon binary with those as flags (plus any extra flags),
// and waits (bounded) until every bookie's /ready answers 200. Bookies are
// started with PR_SET_PDEATHSIG so that a crashed test leaves none behind:
// call Start on a thread that outlives the cluster (the test's main thread).
//
// Options::networks may put bookie i in a network namespace (joined with
// setns before exec) with its own address and metadata URI; see
// net_namespace.h.
//
// Faults: Kill(i) (SIGKILL, reaped), Format(i) (its disks wiped and
// re-cookied, as `bookie format` does), Suspend(i)/Resume(i) (SIGSTOP/SIGCONT),
// Restart(i) (same id, dirs and ports; retried while the metadata store
// still holds the killed process's registration, until it is ready; more
// flags for that bookie from then on, such as forceReadOnlyBookie=true).
// The destructor stops every bookie (SIGTERM, SIGKILL after stop_timeout)
// and removes the directories. A bookie's output is in <dir(i)>/bookie.log.
//
// Not thread-safe; one owner.

#ifndef BK_TEST_SUPPORT_BOOKIE_CLUSTER_H_
#define BK_TEST_SUPPORT_BOOKIE_CLUSTER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk::test {

class BookieCluster {
 public:
  struct Options {
    std::string bookie_binary;  // path of the `bookie` executable
    std::string metadata_uri;   // zk://host:port/root
    int bookies = 3;
    // Rack of bookie i: racks[i % racks.size()]; empty: the default rack.
    std::vector<std::string> racks;
    // zkTimeout of each bookie: how long a killed bookie's registration
    // outlives it.
    int zk_timeout_ms = 4000;
    // Where bookie i runs: networks[i] when given. Lets a test put bookies
    // in network namespaces (test/support/net_namespace.h).
    struct Network {
      // The namespace file setns(2) joins before exec ("/run/netns/<n>");
      // empty: the test's own namespace.
      std::string netns_path;
      // listeningInterface and advertisedAddress; /ready is polled there.
      std::string address = "127.0.0.1";
      // How this bookie reaches the metadata store; empty: metadata_uri.
      std::string metadata_uri;
    };
    std::vector<Network> networks;
    // More --key=value flags for every bookie.
    std::vector<std::string> extra_flags;
    absl::Duration start_timeout = absl::Seconds(60);
    absl::Duration stop_timeout = absl::Seconds(10);
  };

  static absl::StatusOr<std::unique_ptr<BookieCluster>> Start(Options options);
  ~BookieCluster();
  BookieCluster(const BookieCluster&) = delete;
  BookieCluster& operator=(const BookieCluster&) = delete;

  int size() const { return static_cast<int>(bookies_.size()); }
  std::string id(int i) const { return "bk" + std::to_string(i); }
  // Index of a bookie id made by id(); -1 for others.
  int IndexOf(const std::string& id) const;
  int grpc_port(int i) const { return bookies_[i].grpc_port; }
  int http_port(int i) const { return bookies_[i].http_port; }
  // The address bookie i listens on and advertises.
  std::string address(int i) const;
  pid_t pid(int i) const { return bookies_[i].pid; }
  const std::string& dir(int i) const { return bookies_[i].dir; }
  bool running(int i) const { return bookies_[i].pid > 0; }

  absl::Status Kill(int i);
  absl::Status Suspend(int i);
  absl::Status Resume(int i);
  absl::Status Restart(int i, std::vector<std::string> extra_flags = {});
  // Re-formats bookie i as an operator re-formats a replaced disk: `bookie
  // format --yes --force` with its settings erases its journal and ledger
  // directories and writes fresh cookies (there and in the metadata store),
  // so that Restart(i) brings it back empty under the same id.
  // REQUIRES: bookie i not running (Kill it first).
  absl::Status Format(int i);
  // True when /ready answers 200.
  bool Ready(int i) const;

 private:
  struct Bookie {
    std::string dir;
    int grpc_port = 0;
    int http_port = 0;
    pid_t pid = -1;
    std::vector<std::string> extra_flags;  // this bookie's own, last
  };
  explicit BookieCluster(Options options) : options_(std::move(options)) {}
  // The daemon's flags for bookie i (ids, ports, dirs, extra flags).
  std::vector<std::string> Flags(int i) const;
  absl::Status Launch(int i);
  // Waits for /ready; fails if the process exits first.
  absl::Status AwaitReady(int i, absl::Time deadline);
  void StopOne(int i);

  const Options options_;
  std::string root_;
  std::vector<Bookie> bookies_;
};

}  // namespace bk::test

#endif  // BK_TEST_SUPPORT_BOOKIE_CLUSTER_H_
