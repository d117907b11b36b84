// What an add's latency is judged against (issue 22, target 3): the
// journal disk's fdatasync latency measured while the load runs, and the
// loopback round trip.
//
// FsyncProbe writes 4 KiB and fdatasyncs it every `interval` in a file of
// its own in the journal's directory, for as long as it runs, so its
// latencies are the disk's under the bookies' load (a few hundred syncs a
// minute add nothing a journal notices). LoopbackRtt times 1-byte TCP
// ping-pongs over 127.0.0.1 with Nagle off.
#ifndef BK_TOOLS_BKBENCH_LATENCY_PROBES_H_
#define BK_TOOLS_BKBENCH_LATENCY_PROBES_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tools/bkbench/histogram.h"

namespace bk::bkbench {

class FsyncProbe {
 public:
  // Opens (creates) the probe file in `dir`; the thread starts at once.
  static absl::StatusOr<std::unique_ptr<FsyncProbe>> Start(
      const std::string& dir, absl::Duration interval);
  ~FsyncProbe();

  // Stops the thread, removes the file, returns the latencies (us) and
  // the first I/O error, if any.
  LatencyHistogram Stop(absl::Status* error);

 private:
  FsyncProbe(int fd, std::string path, absl::Duration interval);
  void Run();

  const int fd_;
  const std::string path_;
  const absl::Duration interval_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  LatencyHistogram hist_ ABSL_GUARDED_BY(mu_);
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// `rounds` ping-pongs after 100 unmeasured ones.
absl::StatusOr<LatencyHistogram> LoopbackRtt(int rounds);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_LATENCY_PROBES_H_
