// LoadDrift: how a bookie's reported load tends to move between two of its
// reports, as a function of where it stood against the cluster's mean --
// learned from the reports themselves, and used to bring a stale report
// forward to now.
//
// Between two polls every other client places and closes ledgers this
// client never sees. Under the adaptive rule their heavy slots go to the
// bookies the reports show least loaded, so those fill up, and busy bookies
// drain; a report 30 s old says where a bookie was, not where it is. Each
// time a bookie's new report replaces its previous one, the change per
// second is filed under the bin of the previous report's load / mean (the
// mean of recent reports), and each bin keeps an exponential average of
// what it saw:
//
//   drift(bin) <- (1 - alpha) drift(bin) + alpha (new - old) / (t_new - t_old)
//
// and a report of `mib` taken `age` ago is forecast as
//
//   max(0, mib + drift(bin(mib / mean)) x min(age, max_age)).
//
// Nothing is assumed about the other clients: the drift is what the cluster
// did, including this client's own share (counted once more by
// load_estimate.h's pending placements; one client among many). With fresh
// reports the age, hence the correction, is near zero. A bin that has seen
// nothing yet forecasts no change.
//
// Not thread-safe; owned by one policy.

#ifndef BK_PLACEMENT_LOAD_DRIFT_H_
#define BK_PLACEMENT_LOAD_DRIFT_H_

#include <array>

#include "absl/time/time.h"

namespace bk::placement {

class LoadDrift {
 public:
  // Ages beyond `max_age` are forecast as `max_age` (a report that old
  // says little, and the drift was learned over shorter gaps).
  explicit LoadDrift(absl::Duration max_age);

  // A bookie's report moved from `old_mib` (received at `old_at`) to
  // `new_mib` (at `new_at`). Ignored unless both are >= 0 and 0 < new_at -
  // old_at <= max_age.
  void Learn(double old_mib, absl::Time old_at, double new_mib,
             absl::Time new_at);

  // `mib`, reported `age` ago, brought forward to now. `mib` < 0 (unknown)
  // is returned as is.
  double Forecast(double mib, absl::Duration age) const;

  // The learned drift, MiB/s per second, for a report of `mib`.
  double DriftPerSecond(double mib) const;
  // The mean of recent reports the bins are relative to (0 before any).
  double mean() const { return mean_; }

 private:
  static constexpr int kBins = 10;
  // Bin of load / mean: [0, .25), [.25, .5), ... [2, 3), [3, inf).
  int Bin(double mib) const;

  // Constant after construction.
  const absl::Duration max_age_;

  // Not thread-safe: touched only by the owner's (serialised) calls.
  std::array<double, kBins> drift_{};  // MiB/s per second
  std::array<bool, kBins> seen_{};
  double mean_ = 0;  // exponential average of reported MiB/s
  bool any_ = false;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_LOAD_DRIFT_H_
