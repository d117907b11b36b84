// BacklogStream: the bare-stream stand-in for a late reader (issue 22,
// target 5). At the reader's join time it takes the writer's last add
// confirmed and streams entries 0..LAC of the ledger with raw ReadEntries
// calls (MeasureReadCeiling, read_ceiling.h), beside the writers still
// running. Its rate is the ceiling a client reader joining at that moment
// could reach on this machine: the same bytes, the same bookies, the same
// writers and tailing readers competing for the same cores.
//
// The bare stream measured after the run (ReaderResult::
// stream_ceiling_rate) has the machine to itself; on a machine where the
// writers take most of the cores, the two differ by what the writers take.
//
// Threads: Start() and Finish() from the owner's thread.

#ifndef BK_TOOLS_BKBENCH_BACKLOG_STREAM_H_
#define BK_TOOLS_BKBENCH_BACKLOG_STREAM_H_

#include <cstdint>
#include <functional>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/client_options.h"
#include "tools/bkbench/scenario_spec.h"
#include "tools/bkbench/tail_reader.h"

namespace bk::bkbench {

class BacklogStream {
 public:
  // `writer_lac` gives the writer's LAC; it is called from the stream's
  // thread. `client` names the cluster (metadata_service_uri) and its TLS.
  BacklogStream(client::ClientOptions client, ReaderSpec spec,
                int64_t ledger_id, absl::Time run_start,
                std::function<int64_t()> writer_lac);
  ~BacklogStream();

  void Start();
  // Waits for the stream (each of its calls is bounded by a deadline) and
  // returns it as a reader's result: backlog_at_join, backlog_s and
  // backlog_rate from the stream, entries_read the entries it streamed. A
  // stream whose join time has not come is not started: an error.
  ReaderResult Finish();

 private:
  void Run();

  const client::ClientOptions client_;
  const ReaderSpec spec_;
  const int64_t ledger_id_;
  const absl::Time run_start_;
  const std::function<int64_t()> writer_lac_;

  std::thread thread_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  ReaderResult result_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_BACKLOG_STREAM_H_
