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
#include "tools/bkbench/write_load.h"

namespace bk::bkbench {

struct EchoCeiling {
  double entries_per_second = 0;
  double p50_ms = -1;
  double p99_ms = -1;
  int bookies = 0;
};

// Runs `load` (its rate ignored: as fast as the window allows) for
// `duration` against `ensemble` echo bookies.
absl::StatusOr<EchoCeiling> MeasureEchoCeiling(WriteLoadOptions load,
                                               absl::Duration duration);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_ECHO_CEILING_H_
