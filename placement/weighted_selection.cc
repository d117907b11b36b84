#include "placement/weighted_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/random/distributions.h"

namespace bk::placement {
namespace {

double Usable(double w) { return std::isfinite(w) && w > 0 ? w : 0; }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid]
                                : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

size_t PickWeighted(absl::Span<const double> weights, absl::BitGenRef gen) {
  double total = 0;
  for (double w : weights) total += Usable(w);
  if (total <= 0 || !std::isfinite(total)) {
    return absl::Uniform<size_t>(gen, 0, weights.size());
  }
  double point = absl::Uniform<double>(gen, 0, total);
  size_t last_positive = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    double w = Usable(weights[i]);
    if (w <= 0) continue;
    if (point < w) return i;
    point -= w;
    last_positive = i;
  }
  // Rounding left `point` a hair above the last bucket.
  return last_positive;
}

std::vector<double> DiskWeights(absl::Span<const int64_t> free_disk_bytes,
                                double max_multiple) {
  std::vector<double> weights;
  weights.reserve(free_disk_bytes.size());
  double min_non_zero = std::numeric_limits<double>::infinity();
  for (int64_t bytes : free_disk_bytes) {
    double w = bytes > 0 ? static_cast<double>(bytes) : 0;
    if (w > 0) min_non_zero = std::min(min_non_zero, w);
    weights.push_back(w);
  }
  if (weights.empty()) return weights;
  if (!std::isfinite(min_non_zero)) {
    std::fill(weights.begin(), weights.end(), 1.0);
    return weights;
  }
  double median = Median(weights);
  for (double& w : weights) {
    if (w == 0) w = min_non_zero;
  }
  if (median == 0) median = Median(weights);
  if (max_multiple > 0) {
    const double cap = max_multiple * median;
    for (double& w : weights) w = std::min(w, cap);
  }
  return weights;
}

double LoadRouletteWeight(double write_bytes_per_second) {
  double mib_per_second = std::max(write_bytes_per_second, 0.0) / kBytesPerMiB;
  if (mib_per_second > 100) return 5;
  return std::max(100 - mib_per_second, 10.0);
}

LoadWeighting LoadWeights(absl::Span<const BookieInfo* const> candidates,
                          double load_threshold, double low_load_ratio) {
  LoadWeighting result;
  result.weights.assign(candidates.size(), 0.0);
  size_t low_load = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const BookieInfo* info = candidates[i];
    if (info == nullptr || info->journal_io_util < 0 ||
        info->journal_io_util > load_threshold) {
      continue;
    }
    ++low_load;
    result.weights[i] = LoadRouletteWeight(info->write_bytes_per_second);
  }
  if (static_cast<double>(low_load) <=
      low_load_ratio * static_cast<double>(candidates.size())) {
    std::fill(result.weights.begin(), result.weights.end(), 1.0);
    result.fell_back = true;
  }
  return result;
}

}  // namespace bk::placement
