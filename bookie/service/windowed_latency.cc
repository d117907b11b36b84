#include "bookie/service/windowed_latency.h"

#include <chrono>
#include <cmath>

namespace bk::bookie {

WindowedLatency::WindowedLatency(int window_seconds)
    : window_(window_seconds < 1 ? 1 : window_seconds),
      slots_(new Slot[window_ + 1]) {}

int64_t WindowedLatency::NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int WindowedLatency::BucketOf(double seconds) {
  if (!(seconds > kFirstBucketSeconds)) return 0;
  int b = static_cast<int>(
      std::ceil(std::log(seconds / kFirstBucketSeconds) / std::log(kGrowth)));
  return b >= kBuckets ? kBuckets - 1 : b;
}

void WindowedLatency::Record(double seconds, int64_t now_seconds) {
  Slot& s = slots_[now_seconds % (window_ + 1)];
  int64_t seen = s.second.load(std::memory_order_acquire);
  if (seen != now_seconds) {
    // First sample of a new second in this slot: clear it. Only the thread
    // that wins the exchange clears.
    if (s.second.compare_exchange_strong(seen, now_seconds,
                                         std::memory_order_acq_rel)) {
      for (auto& c : s.counts) c.store(0, std::memory_order_relaxed);
    }
  }
  s.counts[BucketOf(seconds)].fetch_add(1, std::memory_order_relaxed);
}

double WindowedLatency::Quantile(double q, int64_t now_seconds) const {
  std::array<uint64_t, kBuckets> sum{};
  uint64_t total = 0;
  for (int i = 0; i <= window_; ++i) {
    const Slot& s = slots_[i];
    const int64_t sec = s.second.load(std::memory_order_acquire);
    if (sec > now_seconds || sec <= now_seconds - window_) continue;
    for (int b = 0; b < kBuckets; ++b) {
      const uint32_t c = s.counts[b].load(std::memory_order_relaxed);
      sum[b] += c;
      total += c;
    }
  }
  if (total == 0) return -1;
  const uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(total)));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += sum[b];
    if (seen >= rank && seen > 0) {
      return kFirstBucketSeconds * std::pow(kGrowth, b);
    }
  }
  return kFirstBucketSeconds * std::pow(kGrowth, kBuckets - 1);
}

}  // namespace bk::bookie
