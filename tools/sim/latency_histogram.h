// LatencyHistogram: weighted latencies in logarithmic buckets (64 per decade,
// 1 us .. 10^4 s, relative error under 2%), for percentiles over many adds
// without keeping each one.

#ifndef BK_TOOLS_SIM_LATENCY_HISTOGRAM_H_
#define BK_TOOLS_SIM_LATENCY_HISTOGRAM_H_

#include <array>

namespace bk::sim {

class LatencyHistogram {
 public:
  static constexpr int kBucketsPerDecade = 64;
  static constexpr int kDecades = 10;  // 1e-6 s .. 1e4 s
  static constexpr int kBuckets = kBucketsPerDecade * kDecades;

  // Adds `weight` (> 0) adds of `seconds` latency; values outside the range
  // land in the first or last bucket.
  void Add(double seconds, double weight);
  void Merge(const LatencyHistogram& other);
  void Clear();

  double total_weight() const { return total_; }
  // The latency under which a fraction `q` (0..1) of the weight falls: the
  // geometric middle of the bucket holding it. 0 when empty.
  double Quantile(double q) const;

 private:
  std::array<double, kBuckets> weight_{};
  double total_ = 0;
};

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_LATENCY_HISTOGRAM_H_
