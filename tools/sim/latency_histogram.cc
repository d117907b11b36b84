#include "tools/sim/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace bk::sim {
namespace {
constexpr double kMinLog10 = -6;
}  // namespace

void LatencyHistogram::Add(double seconds, double weight) {
  if (!(weight > 0)) return;
  int bucket = 0;
  if (seconds > 0) {
    const double pos = (std::log10(seconds) - kMinLog10) * kBucketsPerDecade;
    bucket = static_cast<int>(std::clamp(pos, 0.0, kBuckets - 1.0));
  }
  weight_[bucket] += weight;
  total_ += weight;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) weight_[i] += other.weight_[i];
  total_ += other.total_;
}

void LatencyHistogram::Clear() {
  weight_.fill(0);
  total_ = 0;
}

double LatencyHistogram::Quantile(double q) const {
  if (total_ <= 0) return 0;
  const double target = std::clamp(q, 0.0, 1.0) * total_;
  double seen = 0;
  int bucket = kBuckets - 1;
  for (int i = 0; i < kBuckets; ++i) {
    seen += weight_[i];
    if (seen >= target && weight_[i] > 0) {
      bucket = i;
      break;
    }
  }
  return std::pow(10.0, kMinLog10 + (bucket + 0.5) / kBucketsPerDecade);
}

}  // namespace bk::sim
