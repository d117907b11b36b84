#include "placement/adaptive_weights.h"

#include <algorithm>
#include <cmath>

#include "placement/weighted_selection.h"

namespace bk::placement {
namespace {

// 2^(-age / half_life); 1 for a non-positive age (a report "from the future"
// after clock skew counts as fresh), 0 for a zero half-life.
double Decay(absl::Duration age, absl::Duration half_life) {
  if (age <= absl::ZeroDuration()) return 1;
  if (half_life <= absl::ZeroDuration()) return 0;
  return std::exp2(-absl::FDivDuration(age, half_life));
}

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid]
                                : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

double AdaptiveReportWeight(const BookieReport* report, absl::Time now,
                            double mean_mib_per_second,
                            const AdaptiveOptions& options) {
  if (report == nullptr) return 1;
  const BookieInfo& info = report->info;
  double load = -1;
  if (info.journal_io_util >= 0) {
    load = std::max(0.0, (info.journal_io_util - options.busy_util_percent) /
                             (100 - options.busy_util_percent));
  }
  if (info.write_bytes_per_second >= 0) {
    const double mib = info.write_bytes_per_second / kBytesPerMiB;
    load = std::max(load, mib / options.saturation_mib_per_second);
    if (options.full_multiple_of_mean > 0 && mean_mib_per_second > 0) {
      load = std::max(
          load, mib / (options.full_multiple_of_mean * mean_mib_per_second));
    }
  }
  if (load < 0) return 1;
  load = std::clamp(load, 0.0, 1.0);
  double influence = Decay(now - report->received_at, options.report_half_life);
  return std::max(options.min_weight, 1 - influence * load);
}

double MeanReportedMiBPerSecond(absl::Span<const BookieId> population,
                                const Topology& topology) {
  double sum = 0;
  int known = 0;
  for (const BookieId& id : population) {
    const BookieReport* report = topology.Report(id);
    if (report == nullptr || report->info.write_bytes_per_second < 0) continue;
    sum += report->info.write_bytes_per_second / kBytesPerMiB;
    ++known;
  }
  return known > 0 ? sum / known : -1;
}

AdaptiveWeigher::AdaptiveWeigher(const AdaptiveOptions& options)
    : options_(options) {}

void AdaptiveWeigher::Observe(const BookieId& id, int64_t inflight_adds,
                              absl::Duration add_latency, absl::Time at) {
  Observation obs{std::max<int64_t>(inflight_adds, 0),
                  std::max(add_latency, absl::ZeroDuration()), at};
  auto [it, inserted] = observations_.try_emplace(id, obs);
  if (!inserted && it->second.at <= at) it->second = obs;
}

void AdaptiveWeigher::Retain(const Topology& topology) {
  absl::erase_if(observations_, [&topology](const auto& entry) {
    return topology.State(entry.first) == BookieState::kUnknown;
  });
}

std::vector<double> AdaptiveWeigher::Weights(
    absl::Span<const BookieId> bookies, absl::Span<const BookieId> population,
    const Topology& topology, absl::Time now) const {
  const double mean = MeanReportedMiBPerSecond(population, topology);
  std::vector<double> population_weights;
  population_weights.reserve(population.size());
  for (const BookieId& id : population) {
    population_weights.push_back(
        AdaptiveReportWeight(topology.Report(id), now, mean, options_));
  }
  const double cap = options_.cap_multiple > 0
                         ? options_.cap_multiple * MedianOf(population_weights)
                         : 0;
  std::vector<double> weights;
  weights.reserve(bookies.size());
  for (const BookieId& id : bookies) {
    double w = AdaptiveReportWeight(topology.Report(id), now, mean, options_);
    if (cap > 0) w = std::min(w, cap);
    weights.push_back(w);
  }
  return weights;
}

double AdaptiveWeigher::Cost(const BookieId& id, absl::Time now,
                             double median_cost) const {
  auto it = observations_.find(id);
  if (it == observations_.end()) return median_cost;
  const Observation& obs = it->second;
  double fresh = Decay(now - obs.at, options_.observation_half_life);
  return fresh * OwnCost(obs) + (1 - fresh) * median_cost;
}

size_t AdaptiveWeigher::Choose(absl::Span<const BookieId* const> bookies,
                               absl::Span<const double> weights, absl::Time now,
                               absl::BitGenRef gen) const {
  size_t best = PickWeighted(weights, gen);
  const int choices = std::max(options_.choices, 1);
  if (choices == 1 || observations_.empty()) return best;
  std::vector<double> costs;
  costs.reserve(observations_.size());
  for (const auto& [id, obs] : observations_) costs.push_back(OwnCost(obs));
  const double median_cost = MedianOf(std::move(costs));
  double best_cost = Cost(*bookies[best], now, median_cost);
  for (int i = 1; i < choices; ++i) {
    size_t other = PickWeighted(weights, gen);
    double cost = Cost(*bookies[other], now, median_cost);
    if (cost < best_cost * (1 - options_.choice_margin)) {
      best = other;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace bk::placement
