// RunStreamLoad: the bare gRPC load of the add path, with no client library
// in between. Each of `streams` AddEntries streams (one channel each) has a
// writer thread that packages entries (entry::Package, CRC32C) into batches
// of `batch` and writes one batch while fewer than `window` entries are
// unanswered; the stream's own thread reads the answers. Against
// EchoServer it is the RPC stack's ceiling for that batching (what
// bench/bookie_add_bench and `bkbench echo` compare to); against a real
// bookie's port, the bookie's add path under the same load.
//
// Not a test: it asserts nothing and counts errors.

#ifndef BK_BOOKIE_ECHO_STREAM_LOAD_H_
#define BK_BOOKIE_ECHO_STREAM_LOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bk::bookie {

struct StreamLoadOptions {
  double seconds = 5;
  int streams = 2;
  int batch = 64;
  size_t entry_size = 1024;   // payload bytes
  int64_t window = 4096;      // unanswered entries per stream
  uint64_t first_ledger = 1;  // stream s writes ledger first_ledger + s
};

struct StreamLoadResult {
  int64_t adds = 0;  // answered EOK
  int64_t errors = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // the whole process's (getrusage), during the run
  std::vector<float> latencies_us;  // batch written -> entry answered

  double AddsPerSecond() const { return seconds > 0 ? adds / seconds : 0; }
  // q in [0, 1]; reorders latencies_us.
  double PercentileUs(double q);
};

// Runs the load against `target` ("host:port", insecure) and returns once
// every stream has ended.
StreamLoadResult RunStreamLoad(const std::string& target,
                               const StreamLoadOptions& options);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_ECHO_STREAM_LOAD_H_
