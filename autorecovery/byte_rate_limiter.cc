#include "autorecovery/byte_rate_limiter.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace bk::autorecovery {

absl::Duration ByteRateLimiter::Reserve(int64_t bytes, absl::Time now) {
  if (rate_ <= 0 || bytes <= 0) return absl::ZeroDuration();
  absl::MutexLock l(&mu_);
  // At most `burst_` of unused rate is credited.
  const absl::Time start = std::max(next_free_, now - burst_);
  const absl::Duration cost =
      absl::Seconds(static_cast<double>(bytes) / static_cast<double>(rate_));
  next_free_ = start + cost;
  return std::max(absl::ZeroDuration(), start - now);
}

absl::Duration ByteRateLimiter::Acquire(int64_t bytes) {
  const absl::Duration wait = Reserve(bytes, absl::Now());
  if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
  return wait;
}

}  // namespace bk::autorecovery
