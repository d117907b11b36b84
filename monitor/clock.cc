#include "monitor/clock.h"

#include <chrono>

namespace bk::monitor {
namespace {

class SteadyClock final : public Clock {
 public:
  int64_t NowNanos() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

Clock* SystemClock() {
  static SteadyClock* const clock = new SteadyClock();
  return clock;
}

}  // namespace bk::monitor
