// LoadEstimate: what one client believes each bookie writes now, from the
// bookies' (stale) load reports corrected by the client's own placements
// since those reports were taken.
//
// A report received at t describes the bookie's writes over the monitor's
// window before t (`report_window`, BaseMetricMonitor's samples x period). A
// placement this client made at p adds its slot rate to the bookie's
// estimate in full while p is after every report held for the bookie, and
// fades out linearly as later reports cover the window after p:
//
//   estimate(b) = reported(b) + sum over own placements p on b of
//                 rate(p) x (1 - clamp((received_at(b) - p) / window, 0, 1))
//
// so a burst of this client's placements is never invisible for a report
// interval (what makes a lone client pile onto the bookie a stale report
// shows as idle), and never counted twice once reports show it.
// Reports older than `max_report_age`, and bookies that never reported, have
// no reported figure: the estimate is then the median of the known ones
// (neutral) plus the pending placements.
//
// Not thread-safe; owned by one policy.

#ifndef BK_PLACEMENT_LOAD_ESTIMATE_H_
#define BK_PLACEMENT_LOAD_ESTIMATE_H_

#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "placement/topology.h"
#include "placement/types.h"

namespace bk::placement {

class LoadEstimate {
 public:
  LoadEstimate(absl::Duration report_window, absl::Duration max_report_age);

  // This client placed a slot of `mib_per_second` on `id` at `at`; a
  // negative rate is a slot it closed, which the estimate takes off until
  // reports show the bookie writing less. 0 or not finite: ignored.
  void OnPlaced(const BookieId& id, double mib_per_second, absl::Time at);
  // Drops pending placements of bookies no longer in `topology`, and those
  // every report has covered.
  void Retain(const Topology& topology, absl::Time now);

  // Estimated write MiB/s of each of `bookies` at `now`.
  std::vector<double> Estimate(absl::Span<const BookieId* const> bookies,
                               const Topology& topology, absl::Time now) const;
  // The pending part alone (what reports do not show yet).
  double Pending(const BookieId& id, const Topology& topology) const;

 private:
  struct Placed {
    double mib_per_second;
    absl::Time at;
  };
  // The report's write MiB/s, or -1 when none is usable at `now`.
  double Reported(const BookieId& id, const Topology& topology,
                  absl::Time now) const;

  // Constant after construction.
  const absl::Duration report_window_;
  const absl::Duration max_report_age_;

  // Not thread-safe: touched only by the owner's (serialised) calls.
  absl::flat_hash_map<BookieId, std::deque<Placed>> pending_;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_LOAD_ESTIMATE_H_
