// WindowedLatency: quantiles of a latency over the last few seconds, for the
// load report (GetBookieInfo's add_latency_p99_ms). Recording is lock-free:
// one relaxed atomic increment in a per-second slot of log-spaced buckets
// (x1.25 from 10 us, so a quantile is exact to within 25 %).
//
// A slot is reused every window+1 seconds; a recorder that races with the
// reset of a stale slot may lose that one sample, which a load figure
// tolerates. Thread-safe.

#ifndef BK_BOOKIE_SERVICE_WINDOWED_LATENCY_H_
#define BK_BOOKIE_SERVICE_WINDOWED_LATENCY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace bk::bookie {

class WindowedLatency {
 public:
  static constexpr int kBuckets = 64;
  static constexpr double kFirstBucketSeconds = 10e-6;
  static constexpr double kGrowth = 1.25;

  // `window_seconds` >= 1.
  explicit WindowedLatency(int window_seconds);

  // Records one latency observed at `now_seconds` (a monotonic second count).
  void Record(double seconds, int64_t now_seconds);
  // The q-quantile (0..1) in seconds over the window ending at
  // `now_seconds`, as the upper bound of its bucket; -1 with no samples.
  double Quantile(double q, int64_t now_seconds) const;

  static int64_t NowSeconds();

 private:
  struct Slot {
    std::atomic<int64_t> second{-1};
    std::array<std::atomic<uint32_t>, kBuckets> counts{};
  };
  static int BucketOf(double seconds);

  const int window_;
  std::unique_ptr<Slot[]> slots_;  // window_ + 1 of them
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_WINDOWED_LATENCY_H_
