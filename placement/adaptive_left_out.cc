// AdaptiveChooser::LeftOutReason: why the adaptive rule would leave a
// bookie out of a slot right now, for tools (bkbench's scenario report,
// RackAwarePolicy::LeftOut). Mirrors Choose's filters; see
// adaptive_chooser.h.

#include "absl/strings/str_format.h"
#include "placement/adaptive_chooser.h"

namespace bk::placement {

std::string AdaptiveChooser::LeftOutReason(
    const BookieId& id, absl::Span<const BookieId* const> eligible,
    double slot_mib, const View& view, const Topology& topology,
    absl::Time now) const {
  const bool fresh = slot_mib >= 0 && FreshReports(eligible, topology, now);
  const double util = Util(id, topology, now);
  if (fresh && ReportsSlow(id, view, topology, now)) {
    const BookieReport* r = topology.Report(id);
    return absl::StrFormat(
        "slow report: add p99 %.1f ms (median %.1f ms, own floor %.1f ms)",
        r->info.add_latency_p99_ms, view.median_latency_ms, floor_.Floor(id));
  }
  if (!fresh && util >= options_.avoid_util_percent) {
    return absl::StrFormat("journal %.0f %% busy (>= %.0f %%)", util,
                           options_.avoid_util_percent);
  }
  if (SeenSlow(id, ObservedMedianS(now), now)) {
    return absl::StrFormat(
        "this client's adds to it are over %.0f x the median latency",
        options_.slow_latency_multiple);
  }
  if (slot_mib >= 0 && slot_mib > options_.big_slot_multiple * view.mean &&
      !(util >= 0 && util <= options_.big_slot_util_percent)) {
    if (util < 0) return "big slot: no journal utilisation reported";
    return absl::StrFormat("big slot: journal %.0f %% busy (> %.0f %%)", util,
                           options_.big_slot_util_percent);
  }
  return "";
}

}  // namespace bk::placement
