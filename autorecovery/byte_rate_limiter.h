// ByteRateLimiter: holds its callers to a byte rate (replicationRateByBytes)
// so that re-replication does not starve clients of disk and network. A
// caller books the bytes it has just copied (or is about to) and is made to
// wait until the rate has caught up with everything booked. Idle time is
// credited for `burst` at most (a token bucket `burst` deep), so repair
// never sends more than rate * burst ahead of the rate: a deep bucket (a
// second of credit) let whole batches out at once, which is what clients
// sharing the bookies felt as added latency.
//
// Thread-safe: callers are served in the order they ask.

#ifndef BK_AUTORECOVERY_BYTE_RATE_LIMITER_H_
#define BK_AUTORECOVERY_BYTE_RATE_LIMITER_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bk::autorecovery {

class ByteRateLimiter {
 public:
  // bytes_per_second <= 0: no limit.
  explicit ByteRateLimiter(int64_t bytes_per_second,
                           absl::Duration burst = absl::Milliseconds(10))
      : rate_(bytes_per_second), burst_(burst) {}

  // Blocks until `bytes` may go; returns how long it waited.
  absl::Duration Acquire(int64_t bytes);
  // The wait Acquire(bytes) would impose at `now`, and books it (the pure
  // rule behind Acquire, for tests).
  absl::Duration Reserve(int64_t bytes, absl::Time now);

 private:
  const int64_t rate_;
  const absl::Duration burst_;
  absl::Mutex mu_;
  // When the bytes booked so far have gone at the rate.
  absl::Time next_free_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_BYTE_RATE_LIMITER_H_
