// Read ordering: which replica of an entry to ask first.
//
// Replicas are ordered, as BookKeeper's rack-aware policy orders them:
//   1. healthy (writable, no failure recorded, not slow), in write-set order;
//   2. writable with a failure recorded, the older failure (lower entry id)
//      first;
//   3. read-only, not slow;
//   4. slow (writable without failure, or read-only), fewest pending
//      requests first;
//   5. unavailable (not in the cluster).
// Ties keep write-set order. Before that, with a threshold > 0, if the first
// replica has at least `threshold` more pending requests than the least
// loaded one, the least loaded one (only) moves to the front.
//
// Unlike BookKeeper, the ordering is applied even when no replica of the
// ensemble is down or slow, so that failed and read-only replicas always go
// after healthy ones.

#ifndef BK_PLACEMENT_READ_REORDER_H_
#define BK_PLACEMENT_READ_REORDER_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "placement/topology.h"
#include "placement/types.h"

namespace bk::placement {

// What the client knows of a bookie's health from its own requests.
struct BookieHealth {
  // Entry id of the latest request to it that failed; -1: none.
  int64_t last_failed_entry = -1;
  // Requests sent to it and not answered yet.
  int64_t pending_requests = 0;
  // The client has marked it slow (for instance after a speculative read).
  bool slow = false;
};

// A bookie absent from the map is healthy with no pending requests.
using BookieHealthMap = absl::flat_hash_map<BookieId, BookieHealth>;

// Returns `write_set` (indices into `ensemble`) in read order.
// REQUIRES: every index of write_set is in [0, ensemble.size()).
std::vector<int> ReorderReadSequence(
    const std::vector<BookieId>& ensemble, const std::vector<int>& write_set,
    const BookieHealthMap& health,
    absl::FunctionRef<BookieState(const BookieId&)> state,
    int64_t threshold_pending_requests);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_READ_REORDER_H_
