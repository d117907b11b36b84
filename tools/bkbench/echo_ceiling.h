// The RPC ceiling of a write run: the same client library, batching, entry
// size, ledgers and quorums as the run, against in-process echo bookies
// (bookie/echo/echo_service.h: every add answered EOK at once, nothing
// stored) registered in a private in-process metadata store. What the run
// achieves divided by this is the share of the RPC stack's capacity it reached.
//
// Client and echo servers share this process, as client and bookies share
// the machine in a local-cluster run.

#ifndef BK_TOOLS_BKBENCH_ECHO_CEILING_H_
#define BK_TOOLS_BKBENCH_ECHO_CEILING_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client_options.h"
#include "tools/bkbench/write_load.h"

namespace bk::bkbench {

struct EchoCeiling {
  double entries_per_second = 0;
  double p50_ms = -1;
  double p99_ms = -1;
  int bookies = 0;
  // Of the measured pass (not the warm-up): entries confirmed, its wall
  // time, the process's CPU seconds (client, load and echo servers), and
  // the heap allocations made (all, and those of 1 KiB or more, where a
  // copy of a payload lands), when counters were given.
  int64_t entries = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  uint64_t allocations = 0;
  uint64_t large_allocations = 0;
};

// Heap allocation counters of the process (common/alloc/alloc_counter.h),
// which only a benchmark executable links; null: not counted.
struct AllocCounters {
  uint64_t (*all)() = nullptr;
  uint64_t (*large)() = nullptr;
};

// Runs `load` (its rate ignored: as fast as the window allows) for
// `duration` against `ensemble` echo bookies, with a client of `options`
// (the run's, so that a client setting moves the ceiling as it moves the
// run) but for its cluster and TLS: the echo bookies' own cluster,
// plaintext.
absl::StatusOr<EchoCeiling> MeasureEchoCeiling(
    WriteLoadOptions load, absl::Duration duration, AllocCounters counters = {},
    client::ClientOptions options = {});

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_ECHO_CEILING_H_
