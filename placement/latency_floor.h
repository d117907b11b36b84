// LatencyFloor: each bookie's own floor of reported add latency (the p99 of
// GetBookieInfo's `add_latency_p99_ms`), as one client learns it from the
// bookie's successive reports.
//
// The floor is the lowest latency the bookie has reported, rising slowly
// while its reports stay above it: geometrically towards the report, by
// 1 - exp(-dt / memory) of the (log) distance, dt the time since the floor
// last moved. So a bookie's latency now against its own floor says how far
// it is from its own quiet state, whatever its device: an SSD journal's
// floor is a fraction of a millisecond, an HDD's a few milliseconds, and
// the cluster's median (most bookies on SSDs) says nothing about an HDD.
// A healthy journal's add latency grows with its load as a queue's does
// (M/D/1: sync x (1 + rho / (2 (1 - rho)))), so it reaches 4 x its floor
// only near saturation (rho >= 6/7); a journal whose device slowed down by
// a factor k (a gray failure) sits at k x its floor even when idle.
//
// A bookie slowed for longer than `memory` becomes its own new normal:
// after a time T above it the floor has risen by 1 - exp(-T / memory) of
// the (log) distance. Reports of 0 or less (no adds in the window, or not
// measured) teach nothing. Reports older than the floor are ignored.
//
// Not thread-safe; owned by one AdaptiveChooser.

#ifndef BK_PLACEMENT_LATENCY_FLOOR_H_
#define BK_PLACEMENT_LATENCY_FLOOR_H_

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "placement/topology.h"
#include "placement/types.h"

namespace bk::placement {

class LatencyFloor {
 public:
  // REQUIRES: memory > 0.
  explicit LatencyFloor(absl::Duration memory);

  // `id` reported an add latency p99 of `p99_ms` at `at`.
  void Learn(const BookieId& id, double p99_ms, absl::Time at);

  // The floor of `id` in ms; -1 while it has reported no latency above 0.
  double Floor(const BookieId& id) const;

  // Forgets bookies no longer in `topology`.
  void Retain(const Topology& topology);

 private:
  struct Entry {
    double ms;
    absl::Time at;  // when the floor last moved
  };
  const absl::Duration memory_;
  absl::flat_hash_map<BookieId, Entry> floors_;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_LATENCY_FLOOR_H_
