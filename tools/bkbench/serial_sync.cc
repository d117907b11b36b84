#include "tools/bkbench/serial_sync.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace bk::bkbench {

double SerialSyncQuantileUs(const LatencyHistogram& syncs, double q) {
  if (syncs.count() == 0) return -1;
  // (duration, probability) per bucket, at the bucket's midpoint.
  std::vector<std::pair<double, double>> s;
  const double n = static_cast<double>(syncs.count());
  double mean = 0;
  syncs.ForEachBucket([&](int64_t lo, int64_t hi, int64_t count) {
    const double v = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
    s.emplace_back(v, static_cast<double>(count) / n);
    mean += v * static_cast<double>(count) / n;
  });
  // P(R > x) = E[(S - x)+] / E[S]; 1 for x <= 0.
  auto residual_tail = [&](double x) {
    if (x <= 0) return 1.0;
    if (mean <= 0) return 0.0;
    double e = 0;
    for (const auto& [v, p] : s) e += p * std::max(v - x, 0.0);
    return e / mean;
  };
  // P(T > t), T = R + S'.
  auto tail = [&](double t) {
    double p_over = 0;
    for (const auto& [v, p] : s) p_over += p * residual_tail(t - v);
    return p_over;
  };
  // T <= 2 x the longest sync; the tail falls as t grows: bisect.
  double lo = 0, hi = 2 * s.back().first + 1;
  for (int i = 0; i < 100 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    if (tail(mid) > 1 - q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

}  // namespace bk::bkbench
