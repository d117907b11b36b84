// ClockEnv: an Env whose clocks read the target's plus an offset that the
// test moves forward with Advance. A test lets an hour pass at once (a
// retention, an interval) without sleeping, while time still flows for code
// that waits on it (group-commit timers, throttles).

#ifndef BK_TEST_SUPPORT_CLOCK_ENV_H_
#define BK_TEST_SUPPORT_CLOCK_ENV_H_

#include <atomic>
#include <cstdint>

#include "absl/time/time.h"
#include "common/env.h"

namespace bk::testing {

class ClockEnv : public EnvWrapper {
 public:
  // `target` must outlive this Env.
  explicit ClockEnv(Env* target) : EnvWrapper(target) {}

  // Moves both clocks forward by `d` (>= 0).
  void Advance(absl::Duration d) {
    offset_nanos_.fetch_add(absl::ToInt64Nanoseconds(d));
  }

  absl::Time Now() override {
    return target()->Now() + absl::Nanoseconds(offset_nanos_.load());
  }
  int64_t NowMonotonicNanos() override {
    return target()->NowMonotonicNanos() + offset_nanos_.load();
  }

 private:
  std::atomic<int64_t> offset_nanos_{0};
};

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_CLOCK_ENV_H_
