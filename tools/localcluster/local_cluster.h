// LocalCluster: a real ZooKeeper (the Debian package's server) and N bookie
// processes on loopback, each bookie with its own journal and ledger dirs
// and a rack, for trying the system out and for benchmarks.
//
// Layout under options.dir:
//   zookeeper/{zoo.cfg,data/,zookeeper.log}
//   bookie-<i>/{bookie.conf,journal/,ledgers/,bookie.log}
// Starting again on the same dir resumes: the same bookie ids, ports and
// dirs, so cookies match and the journals replay.
//
// Not thread-safe; one owner. Stop() (and the destructor) stops the bookies
// with SIGTERM (they drain and exit), then ZooKeeper.

#ifndef BK_TOOLS_LOCALCLUSTER_LOCAL_CLUSTER_H_
#define BK_TOOLS_LOCALCLUSTER_LOCAL_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tools/localcluster/child_process.h"

namespace bk::localcluster {

struct LocalClusterOptions {
  int bookies = 5;
  // Bookies Start starts (the first ones); < 0: all. The others have their
  // ids, ports and directories and join with RestartBookie(i), as an
  // operator adds a bookie.
  int started_bookies = -1;
  int racks = 3;  // bookie i is in /region-1/rack-(i % racks + 1)
  std::string dir = "/tmp/bk-localcluster";
  int zookeeper_port = 2181;
  int first_bookie_port = 3181;  // bookie i: gRPC first+i
  int first_http_port = 8000;    // bookie i: HTTP first+i
  std::string bookie_binary;     // path of `bookie`
  std::string java = "java";
  std::string zookeeper_classpath =
      "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:"
      "/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-simple.jar";
  // More `key=value` lines for every bookie's config (e.g. a slowed disk).
  std::vector<std::string> extra_bookie_config;
  // Per bookie index: more config lines for that bookie only.
  std::vector<std::pair<int, std::string>> per_bookie_config;
  absl::Duration start_timeout = absl::Seconds(60);
};

// InvalidArgument naming the first of `lines` that is not `key=value` with
// a key (for --bookie-config flags; the bookie's own parser names a bad key
// or value when it starts).
absl::Status CheckBookieConfigLines(const std::vector<std::string>& lines);

struct BookieEndpoint {
  std::string id;
  std::string rack;
  int grpc_port = 0;
  int http_port = 0;
  std::string dir;
};

class LocalCluster {
 public:
  // Checks every port is free (a clear error naming the port otherwise),
  // starts ZooKeeper, waits for it, starts the bookies and waits until each
  // answers /ready. On failure stops what it started and says which part
  // failed and where its log is.
  static absl::StatusOr<std::unique_ptr<LocalCluster>> Start(
      LocalClusterOptions options);
  // Start on ports found free instead of options' fixed ones, so that two
  // clusters (two benchmark runs, a run beside `bkctl localcluster`) do not
  // collide: the bookies' gRPC and HTTP ports, and ZooKeeper's unless
  // options.zookeeper_port is not 0, are one range of consecutive free
  // ports drawn at random in [20000, 60000). A port can be taken between
  // the check and the bind, so a failed start is tried again, `attempts`
  // times in all, each in a directory of its own: options.dir + "-<n>"
  // (n from 0). The last failure when none started.
  static absl::StatusOr<std::unique_ptr<LocalCluster>> StartOnFreePorts(
      LocalClusterOptions options, int attempts = 3);
  ~LocalCluster();

  std::string metadata_uri() const;
  const std::vector<BookieEndpoint>& bookies() const { return endpoints_; }

  // Bookie i: SIGKILL / SIGTERM and wait for its drain (SIGKILL past 35 s;
  // the exit status, as ChildProcess::Stop) / start again on the same dirs
  // and ports.
  void KillBookie(int i);
  int StopBookie(int i);
  absl::Status RestartBookie(int i);
  bool BookieRunning(int i);
  // The processes running now: ZooKeeper's and the bookies' (for a
  // benchmark's CPU account).
  std::vector<pid_t> RunningPids();

  void Stop();

 private:
  explicit LocalCluster(LocalClusterOptions options);
  absl::Status StartZooKeeper();
  absl::Status StartBookie(int i);
  absl::Status WaitReady(int i, absl::Time deadline);

  const LocalClusterOptions options_;
  std::unique_ptr<ChildProcess> zookeeper_;
  std::vector<std::unique_ptr<ChildProcess>> bookies_;
  std::vector<BookieEndpoint> endpoints_;
};

}  // namespace bk::localcluster

#endif  // BK_TOOLS_LOCALCLUSTER_LOCAL_CLUSTER_H_
