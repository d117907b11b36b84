// Metrics: what one simulation run measures, and the figures it reports.
//
// Throughput. Every `interval` seconds (metrics_interval_s) each writable
// bookie's journal write throughput over the interval, in MiB/s ("MB/s" as
// BookKeeper and BP-65 count them), gives three figures across the bookies:
// standard deviation (population), range (max - min) and the mean of the ten
// busiest (top10). Read-only bookies write nothing new and are left out.
// The same three figures are also taken per journal *disk* (the sum of the
// writable bookies sharing one device; a device with none is left out):
// BP-65's table measured journal disks, and with three bookies on one disk
// the disk carries their sum. The placement targets use the per-bookie
// figures; BP-65's direction (load vs none) the per-disk ones.
//
// Latency. Every add's latency (the ack-quorum-th fastest of its write
// quorum, see simulator.h), weighted by the adds it stands for, goes into the
// interval's histogram; p50, p99 and p999 are read per interval.
//
// Herd. New-ensemble slots are counted per bookie in windows of `herd_window`
// seconds. For a window with n >= kMinHerdSlots slots of which c_b went to
// bookie b,
//   collision(w) = sum_b c_b (c_b - 1) / (n (n - 1))
// is the chance that two of the window's slots share a bookie; the baseline
// is the chance sum_b p_b^2 for two slots drawn from the run's own
// distribution p_b (each bookie's share of all slots after warm-up), and
//   herd(w) = collision(w) / sum_b p_b^2.
// 1 means the window placed like the run as a whole (a policy that steadily
// prefers some bookies is not herding); k means new ledgers piled onto the
// same bookies k times more than usual -- many clients acting on the same
// report at once. The estimator is unbiased, so noise does not inflate the
// mean; the peak over windows carries some noise (about sqrt(2 N) / n).
//
// Peaks. The summary figures are the peaks over the intervals (windows)
// after warm-up, as BP-65 reported its production table.
//
// Not thread-safe; one per policy run.

#ifndef BK_TOOLS_SIM_METRICS_H_
#define BK_TOOLS_SIM_METRICS_H_

#include <vector>

#include "tools/sim/latency_histogram.h"

namespace bk::sim {

inline constexpr int kMinHerdSlots = 20;

struct IntervalPoint {
  double end_s = 0;              // simulated time at the interval's end
  double throughput_stddev = 0;  // MiB/s
  double throughput_range = 0;   // MiB/s
  double top10_throughput = 0;   // MiB/s
  // The same three across journal disks (devices), MiB/s.
  double disk_stddev = 0, disk_range = 0, disk_top10 = 0;
  double p50 = 0, p99 = 0, p999 = 0;  // seconds
  // The stddev an omniscient balancer would reach with the ledgers open at
  // the interval's end (ideal_balance.h), MiB/s: the floor for
  // throughput_stddev set by the traffic itself, the same for every policy.
  double ideal_stddev = 0;
  // BalanceLowerBoundStddev of the same ledgers: no placement goes below.
  double bound_stddev = 0;
};

struct HerdPoint {
  double end_s = 0;
  int slots = 0;
  double herd = 0;
};

struct PolicySummary {
  // Peaks over the run after warm-up (the JSON figures).
  double throughput_stddev = 0;
  double throughput_range = 0;
  double top10_throughput = 0;
  double disk_throughput_stddev = 0;  // per journal disk (IntervalPoint)
  double disk_throughput_range = 0;
  double disk_top10_throughput = 0;
  double p50_write_latency = 0;
  double p99_write_latency = 0;
  double p999_write_latency = 0;
  double herd_index = 0;
  double ideal_throughput_stddev = 0;  // peak of IntervalPoint::ideal_stddev
  double bound_throughput_stddev = 0;  // peak of IntervalPoint::bound_stddev
  // Whole-run figures for the report.
  double mean_throughput_stddev = 0;  // mean over the measured intervals
  double mean_ideal_stddev = 0;
  double run_p50 = 0, run_p99 = 0, run_p999 = 0;
  double mean_herd = 0;
  double throttled_mib = 0;
  std::vector<IntervalPoint> series;
  std::vector<HerdPoint> herd_series;
};

class Metrics {
 public:
  // `writable[b]` says whether bookie b counts in throughput figures;
  // `device[b]` is the journal disk it writes (0 .. devices - 1; empty:
  // every bookie on its own disk).
  Metrics(std::vector<bool> writable, std::vector<int> device,
          double interval_s, double herd_window_s, double warmup_s);

  // One tick ending at `end_s`: bytes written per bookie during it.
  void AddWritten(const std::vector<double>& written_bytes);
  void AddLatency(double seconds, double adds) { hist_.Add(seconds, adds); }
  void AddThrottled(double bytes) { throttled_bytes_ += bytes; }
  // A new ensemble chosen at `at_s`.
  void AddPlacement(double at_s, const std::vector<int>& ensemble);
  // Closes the interval ending at `end_s`; the stddevs as IntervalPoint's.
  void CloseInterval(double end_s, double ideal_stddev = 0,
                     double bound_stddev = 0);

  PolicySummary Finish() const;

 private:
  const std::vector<bool> writable_;
  const std::vector<int> device_;  // per bookie; see the constructor
  int devices_ = 0;
  const double interval_s_;
  const double herd_window_s_;
  const double warmup_s_;

  std::vector<double> interval_bytes_;  // per bookie
  LatencyHistogram hist_;               // current interval
  LatencyHistogram run_hist_;           // after warm-up
  std::vector<IntervalPoint> series_;
  std::vector<std::vector<int>> windows_;  // herd window -> bookies placed
  double throttled_bytes_ = 0;
};

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_METRICS_H_
