// LatencyHistogram: log-linear buckets over microseconds (16 sub-buckets
// per power of two, so any percentile is within ~6% of the true value), a
// fixed 1,024-counter footprint, O(1) Record. Not thread-safe: one owner,
// or the caller's lock.

#ifndef BK_TOOLS_BKBENCH_HISTOGRAM_H_
#define BK_TOOLS_BKBENCH_HISTOGRAM_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace bk::bkbench {

class LatencyHistogram {
 public:
  void Record(int64_t us) {
    if (us < 0) us = 0;
    ++counts_[Index(static_cast<uint64_t>(us))];
    ++total_;
    if (us > max_) max_ = us;
  }
  void Merge(const LatencyHistogram& o) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    if (o.max_ > max_) max_ = o.max_;
  }
  int64_t count() const { return total_; }
  int64_t max_us() const { return max_; }
  // Calls fn(lo_us, hi_us, count) for each non-empty bucket, lowest first
  // (values lo_us..hi_us, both included).
  template <typename Fn>
  void ForEachBucket(Fn&& fn) const {
    for (size_t i = 0; i < counts_.size(); ++i) {
      if (counts_[i] == 0) continue;
      const uint64_t lo = i == 0 ? 0 : UpperBound(i - 1) + 1;
      fn(static_cast<int64_t>(lo), static_cast<int64_t>(UpperBound(i)),
         counts_[i]);
    }
  }
  // The upper bound of the bucket holding quantile q in [0, 1]; -1 if empty.
  int64_t PercentileUs(double q) const {
    if (total_ == 0) return -1;
    const auto rank = static_cast<int64_t>(q * static_cast<double>(total_ - 1));
    int64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen > rank) {
        const int64_t hi = static_cast<int64_t>(UpperBound(i));
        return hi < max_ ? hi : max_;
      }
    }
    return max_;
  }

 private:
  static constexpr int kSubBits = 4;  // 16 sub-buckets per octave
  static constexpr uint64_t kSub = 1u << kSubBits;
  static size_t Index(uint64_t v) {
    if (v < kSub) return static_cast<size_t>(v);
    const int octave = 63 - std::countl_zero(v);  // >= kSubBits
    const uint64_t sub = (v >> (octave - kSubBits)) & (kSub - 1);
    return static_cast<size_t>((octave - kSubBits + 1) * kSub + sub);
  }
  static uint64_t UpperBound(size_t i) {
    if (i < kSub) return i;
    const int octave = static_cast<int>(i / kSub) - 1 + kSubBits;
    const uint64_t sub = i % kSub;
    return ((kSub + sub + 1) << (octave - kSubBits)) - 1;
  }
  std::array<int64_t, (64 - kSubBits + 1) * kSub> counts_{};
  int64_t total_ = 0;
  int64_t max_ = 0;
};

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_HISTOGRAM_H_
