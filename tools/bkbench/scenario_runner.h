// Runs a ScenarioSpec against a cluster and gathers a ScenarioResult.
//
// A workload scenario runs on the cluster at `metadata_uri` if one is given,
// otherwise on a LocalCluster it starts (cluster.* of the spec) in
// `cluster_dir` or a fresh temporary directory. A slow-bookie scenario
// always starts its own clusters: one with the slow bookie, on which it
// runs every policy, then an all-healthy one (slow_bookie.cc).

#ifndef BK_TOOLS_BKBENCH_SCENARIO_RUNNER_H_
#define BK_TOOLS_BKBENCH_SCENARIO_RUNNER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "client/client_options.h"
#include "tools/bkbench/scenario_result.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::bkbench {

struct RunnerOptions {
  std::string metadata_uri;  // a running cluster; "" to start one
  std::string cluster_dir;   // for a started cluster; "" for a temp dir
  std::string bookie_binary;
  // The slow bookie's program: `bookie_testing` (test/support/
  // bookie_testing.h), the bookie on a fault Env with testingSyncDelayMs.
  std::string testing_bookie_binary;
  uint64_t seed = 0;        // the run's seed (never 0 here)
  bool progress = true;     // a line per second on stderr
  double echo_seconds = 3;  // the echo ceiling's run; 0: skip it
  // The base of every client and store of a run on metadata_uri: the
  // client config file's keys (ZooKeeper credentials, timeouts) and the
  // TLS towards the bookies. A started cluster is plaintext and open: its
  // runs take the defaults.
  client::ClientOptions client;
  // A workload with readers: after the measured run, the same writers
  // again without readers ("no-readers"), for the writers' latency
  // without them (issue 22, target 5).
  bool control_without_readers = false;
  // A workload with late readers (join_s > 0): one more run of the same
  // writers and tailing readers in which each late reader is the bare
  // stream of its backlog ("streams", backlog_stream.h), so that the
  // catch-up is compared with a stream beside the same writers as well
  // as with the stream after the run.
  bool stream_beside_writers = false;
};

absl::StatusOr<ScenarioResult> RunScenario(const ScenarioSpec& spec,
                                           const RunnerOptions& options);

// --- pieces shared by the kinds (scenario_runner.cc) ---

// One measured run of the spec's writers and readers with `weighting`
// against the cluster at `uri`: warm-up writes (warmup_s, on ledgers of
// their own), then the measured phase on ledgers created after it.
// `slow_bookie_id`, if not empty, is counted in the measured ensembles.
absl::StatusOr<WorkloadRun> RunWorkload(const ScenarioSpec& spec,
                                        placement::Weighting weighting,
                                        const std::string& label,
                                        const std::string& uri,
                                        const RunnerOptions& options,
                                        const std::string& slow_bookie_id);

// Starts a LocalCluster for the spec in `dir` with more per-bookie config.
absl::StatusOr<std::unique_ptr<localcluster::LocalCluster>> StartCluster(
    const ScenarioSpec& spec, const std::string& dir,
    const std::string& bookie_binary,
    std::vector<std::pair<int, std::string>> per_bookie_config);

absl::StatusOr<ScenarioResult> RunSlowBookie(const ScenarioSpec& spec,
                                             const RunnerOptions& options,
                                             const std::string& dir);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_SCENARIO_RUNNER_H_
