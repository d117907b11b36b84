#include "tools/sim/traffic.h"

#include <algorithm>
#include <cmath>

#include "absl/random/distributions.h"
#include "placement/weighted_selection.h"

namespace bk::sim {

double DrawTopicRate(const TrafficConfig& t, std::mt19937_64& rng) {
  const double a = t.pareto_shape;
  const double scale = t.mean_mib_per_second * (a - 1) / a;
  // Inverse CDF; 1 - U lies in (0, 1], so the power is finite.
  const double u = 1 - absl::Uniform<double>(rng, 0, 1);
  const double mib = std::min(scale / std::pow(u, 1 / a), t.max_mib_per_second);
  return mib * placement::kBytesPerMiB;
}

double DrawLedgerRate(const TrafficConfig& t, double topic_rate,
                      std::mt19937_64& rng) {
  if (t.burst_sigma <= 0) return topic_rate;
  const double s = t.burst_sigma;
  const double rate =
      topic_rate * std::exp(absl::Gaussian<double>(rng, -s * s / 2, s));
  const double cap = t.partition_mib_per_second > 0 ? t.partition_mib_per_second
                                                    : t.max_mib_per_second;
  return std::min(rate, cap * placement::kBytesPerMiB);
}

double DrawLifetime(const LedgerConfig& l, std::mt19937_64& rng) {
  const double j = l.lifetime_jitter;
  if (j <= 0) return l.lifetime_s;
  return l.lifetime_s * absl::Uniform<double>(rng, 1 - j, 1 + j);
}

}  // namespace bk::sim
