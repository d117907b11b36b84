// What an add waits at a journal that runs one sync at a time, from the
// distribution of its syncs' durations (issue 22, target 3's yardstick).
//
// A group-committing journal under load is always syncing: the next group
// starts as the last sync returns. An add arriving at a random moment
// first waits out the sync in flight, then its own group's sync. Which sync
// it arrives during is length-biased: a 20 ms sync is 20 times as likely
// to be the one in flight as a 1 ms one (the inspection paradox). The
// residual R of the sync in flight then has the equilibrium tail
//     P(R > x) = E[(S - x)+] / E[S],
// and the add's wait is T = R + S', with S' the next sync drawn
// independently. SerialSyncQuantileUs gives T's quantile, computed exactly
// over the histogram's buckets (each at its midpoint), not sampled.
//
// It is a model, not a bound: a journal idle when the add arrives has no
// residual (lower), and the probe's syncs are not the journal's own
// (the probe writes 4 KiB on its own file, the journal its groups). It
// says what part of an add's tail a journal that serializes its syncs
// (this one, and BookKeeper's force-write thread) owes to the disk alone.
// T's p99 is above 2 x S's p99 when rare long syncs take much of the time
// (the tests' second case), below it when they take little: the add
// p99 past it is the rest of the path (queues, CPU, the answer).

#ifndef BK_TOOLS_BKBENCH_SERIAL_SYNC_H_
#define BK_TOOLS_BKBENCH_SERIAL_SYNC_H_

#include "tools/bkbench/histogram.h"

namespace bk::bkbench {

// T's quantile q (in (0, 1)) in microseconds; -1 if `syncs` is empty.
double SerialSyncQuantileUs(const LatencyHistogram& syncs, double q);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_SERIAL_SYNC_H_
