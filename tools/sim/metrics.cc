#include "tools/sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "placement/weighted_selection.h"

namespace bk::sim {

namespace {

struct Spread {
  double stddev = 0, range = 0, top10 = 0;
};

// Population stddev, max - min and the mean of the ten largest of `v`
// (reordered); zeros when empty.
Spread SpreadOf(std::vector<double>* v) {
  Spread out;
  if (v->empty()) return out;
  double mean = 0;
  for (double x : *v) mean += x;
  mean /= static_cast<double>(v->size());
  double var = 0;
  for (double x : *v) var += (x - mean) * (x - mean);
  out.stddev = std::sqrt(var / static_cast<double>(v->size()));
  auto [lo, hi] = std::minmax_element(v->begin(), v->end());
  out.range = *hi - *lo;
  const size_t top = std::min<size_t>(10, v->size());
  std::partial_sort(v->begin(), v->begin() + top, v->end(),
                    std::greater<double>());
  double sum = 0;
  for (size_t i = 0; i < top; ++i) sum += (*v)[i];
  out.top10 = sum / static_cast<double>(top);
  return out;
}

}  // namespace

Metrics::Metrics(std::vector<bool> writable, std::vector<int> device,
                 double interval_s, double herd_window_s, double warmup_s)
    : writable_(std::move(writable)),
      device_(std::move(device)),
      interval_s_(interval_s),
      herd_window_s_(herd_window_s),
      warmup_s_(warmup_s),
      interval_bytes_(writable_.size(), 0.0) {
  for (int d : device_) devices_ = std::max(devices_, d + 1);
}

void Metrics::AddWritten(const std::vector<double>& written_bytes) {
  for (size_t b = 0; b < interval_bytes_.size(); ++b) {
    interval_bytes_[b] += written_bytes[b];
  }
}

void Metrics::AddPlacement(double at_s, const std::vector<int>& ensemble) {
  if (at_s < warmup_s_) return;
  const size_t window =
      static_cast<size_t>((at_s - warmup_s_) / herd_window_s_);
  if (windows_.size() <= window) windows_.resize(window + 1);
  windows_[window].insert(windows_[window].end(), ensemble.begin(),
                          ensemble.end());
}

void Metrics::CloseInterval(double end_s, double ideal_stddev,
                            double bound_stddev) {
  const bool measured = end_s - interval_s_ >= warmup_s_ - 1e-9;
  if (measured) {
    std::vector<double> mib;
    mib.reserve(interval_bytes_.size());
    // Per disk: MiB/s, or -1 while no writable bookie was seen on it.
    std::vector<double> disk(devices_, -1.0);
    for (size_t b = 0; b < interval_bytes_.size(); ++b) {
      if (!writable_[b]) continue;
      const double v =
          interval_bytes_[b] / interval_s_ / placement::kBytesPerMiB;
      mib.push_back(v);
      if (!device_.empty()) {
        double& d = disk[device_[b]];
        d = std::max(d, 0.0) + v;
      }
    }
    IntervalPoint p;
    p.end_s = end_s;
    p.ideal_stddev = ideal_stddev;
    p.bound_stddev = bound_stddev;
    const Spread bookies = SpreadOf(&mib);
    p.throughput_stddev = bookies.stddev;
    p.throughput_range = bookies.range;
    p.top10_throughput = bookies.top10;
    if (device_.empty()) {
      p.disk_stddev = bookies.stddev;
      p.disk_range = bookies.range;
      p.disk_top10 = bookies.top10;
    } else {
      disk.erase(std::remove(disk.begin(), disk.end(), -1.0), disk.end());
      const Spread disks = SpreadOf(&disk);
      p.disk_stddev = disks.stddev;
      p.disk_range = disks.range;
      p.disk_top10 = disks.top10;
    }
    p.p50 = hist_.Quantile(0.50);
    p.p99 = hist_.Quantile(0.99);
    p.p999 = hist_.Quantile(0.999);
    series_.push_back(p);
    run_hist_.Merge(hist_);
  }
  std::fill(interval_bytes_.begin(), interval_bytes_.end(), 0.0);
  hist_.Clear();
}

PolicySummary Metrics::Finish() const {
  PolicySummary s;
  s.series = series_;
  for (const IntervalPoint& p : series_) {
    s.throughput_stddev = std::max(s.throughput_stddev, p.throughput_stddev);
    s.throughput_range = std::max(s.throughput_range, p.throughput_range);
    s.top10_throughput = std::max(s.top10_throughput, p.top10_throughput);
    s.disk_throughput_stddev =
        std::max(s.disk_throughput_stddev, p.disk_stddev);
    s.disk_throughput_range = std::max(s.disk_throughput_range, p.disk_range);
    s.disk_top10_throughput = std::max(s.disk_top10_throughput, p.disk_top10);
    s.p50_write_latency = std::max(s.p50_write_latency, p.p50);
    s.p99_write_latency = std::max(s.p99_write_latency, p.p99);
    s.p999_write_latency = std::max(s.p999_write_latency, p.p999);
    s.ideal_throughput_stddev =
        std::max(s.ideal_throughput_stddev, p.ideal_stddev);
    s.bound_throughput_stddev =
        std::max(s.bound_throughput_stddev, p.bound_stddev);
    s.mean_throughput_stddev += p.throughput_stddev;
    s.mean_ideal_stddev += p.ideal_stddev;
  }
  if (!series_.empty()) {
    s.mean_throughput_stddev /= static_cast<double>(series_.size());
    s.mean_ideal_stddev /= static_cast<double>(series_.size());
  }
  s.run_p50 = run_hist_.Quantile(0.50);
  s.run_p99 = run_hist_.Quantile(0.99);
  s.run_p999 = run_hist_.Quantile(0.999);
  s.throttled_mib = throttled_bytes_ / placement::kBytesPerMiB;

  // The run's own placement distribution: the herd baseline.
  std::vector<double> share(writable_.size(), 0.0);
  double total = 0;
  for (const std::vector<int>& w : windows_) {
    for (int b : w) share[b] += 1;
    total += static_cast<double>(w.size());
  }
  double baseline = 0;
  for (double c : share) baseline += (c / total) * (c / total);
  if (total < 2 || baseline <= 0) return s;

  std::vector<double> counts(writable_.size());
  double herd_sum = 0;
  int herd_windows = 0;
  for (size_t i = 0; i < windows_.size(); ++i) {
    const std::vector<int>& w = windows_[i];
    const double n = static_cast<double>(w.size());
    if (w.size() < static_cast<size_t>(kMinHerdSlots)) continue;
    std::fill(counts.begin(), counts.end(), 0.0);
    for (int b : w) counts[b] += 1;
    double pairs = 0;
    for (double c : counts) pairs += c * (c - 1);
    HerdPoint h;
    h.end_s = warmup_s_ + static_cast<double>(i + 1) * herd_window_s_;
    h.slots = static_cast<int>(w.size());
    h.herd = pairs / (n * (n - 1)) / baseline;
    s.herd_series.push_back(h);
    s.herd_index = std::max(s.herd_index, h.herd);
    herd_sum += h.herd;
    ++herd_windows;
  }
  if (herd_windows > 0) s.mean_herd = herd_sum / herd_windows;
  return s;
}

}  // namespace bk::sim
