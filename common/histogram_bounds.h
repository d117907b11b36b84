// Bucket bounds for the Prometheus histograms of bookies and clients.
//
// Powers of two put a p99 somewhere in a bucket twice as wide as its lower
// bound: histogram_quantile() can then only say "12.8-25.6 ms", too coarse
// to tell an add tail of 15 ms from one of 25 ms. Four bounds per octave
// narrow that to 19 % (2^(1/4)), for about four times the series; a
// bookie's latency histograms then have about 75 buckets each.

#ifndef BK_COMMON_HISTOGRAM_BOUNDS_H_
#define BK_COMMON_HISTOGRAM_BOUNDS_H_

#include <vector>

namespace bk {

// Bounds per octave of the latency histograms.
inline constexpr int kLatencyBoundsPerOctave = 4;

// Increasing bounds first * 2^(k / per_octave), k = 0, 1, ..., up to and
// including the first one >= last; each rounded to three significant
// digits, so that the `le` labels read as the numbers they are (0.0001,
// 0.000119, 0.000141, ...). REQUIRES: 0 < first <= last, per_octave >= 1.
std::vector<double> ExponentialBounds(double first, double last,
                                      int per_octave);

}  // namespace bk

#endif  // BK_COMMON_HISTOGRAM_BOUNDS_H_
