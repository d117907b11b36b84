// Clock: the monitor's only source of time, injected so that tests drive the
// window with exact intervals.

#ifndef BK_MONITOR_CLOCK_H_
#define BK_MONITOR_CLOCK_H_

#include <atomic>
#include <cstdint>

#include "absl/time/time.h"

namespace bk::monitor {

// A monotonic clock. Implementations are safe for concurrent use.
class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds since an arbitrary fixed origin; never decreases.
  virtual int64_t NowNanos() const = 0;
};

// The process-wide steady clock. Never destroyed.
Clock* SystemClock();

// A clock that moves only when told to. For tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_nanos = 0) : now_nanos_(start_nanos) {}

  int64_t NowNanos() const override {
    return now_nanos_.load(std::memory_order_acquire);
  }
  void Advance(absl::Duration d) {
    now_nanos_.fetch_add(absl::ToInt64Nanoseconds(d),
                         std::memory_order_acq_rel);
  }

 private:
  std::atomic<int64_t> now_nanos_;
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_CLOCK_H_
