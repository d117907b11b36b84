#include "placement/load_drift.h"

#include <algorithm>

namespace bk::placement {
namespace {

// Weight of one observation in its bin's average, and in the mean. A poll
// brings one report per bookie: hundreds of observations, spread over the
// bins, so a bin forgets in a few polls.
constexpr double kAlpha = 0.02;
constexpr double kMeanAlpha = 0.005;
constexpr double kEdges[] = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2, 3};

}  // namespace

LoadDrift::LoadDrift(absl::Duration max_age) : max_age_(max_age) {}

int LoadDrift::Bin(double mib) const {
  if (!(mean_ > 0)) return 0;
  const double ratio = mib / mean_;
  int bin = 0;
  for (double edge : kEdges) {
    if (ratio < edge) return bin;
    ++bin;
  }
  return bin;
}

void LoadDrift::Learn(double old_mib, absl::Time old_at, double new_mib,
                      absl::Time new_at) {
  if (!(old_mib >= 0) || !(new_mib >= 0)) return;
  const absl::Duration gap = new_at - old_at;
  if (gap <= absl::ZeroDuration() || gap > max_age_) return;
  if (!any_) {
    mean_ = old_mib;
    any_ = true;
  }
  mean_ += kMeanAlpha * (old_mib - mean_);
  const int bin = Bin(old_mib);
  const double per_second = (new_mib - old_mib) / absl::ToDoubleSeconds(gap);
  if (!seen_[bin]) {
    drift_[bin] = per_second;
    seen_[bin] = true;
  } else {
    drift_[bin] += kAlpha * (per_second - drift_[bin]);
  }
}

double LoadDrift::DriftPerSecond(double mib) const {
  const int bin = Bin(mib);
  return seen_[bin] ? drift_[bin] : 0;
}

double LoadDrift::Forecast(double mib, absl::Duration age) const {
  if (!(mib >= 0)) return mib;
  const double seconds =
      absl::ToDoubleSeconds(std::clamp(age, absl::ZeroDuration(), max_age_));
  return std::max(0.0, mib + DriftPerSecond(mib) * seconds);
}

}  // namespace bk::placement
