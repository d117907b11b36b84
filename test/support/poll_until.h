// PollUntil: the one bounded poll of the tests. For a condition nothing
// signals (another process's state, a metric, a registration in the
// metadata store); where the code under test can signal, wait on that
// instead (absl::Notification, Mutex::AwaitWithTimeout, a future).

#ifndef BK_TEST_SUPPORT_POLL_UNTIL_H_
#define BK_TEST_SUPPORT_POLL_UNTIL_H_

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace bk::testing {

// Asks `condition` (a callable returning bool) again every `interval` until
// it holds or `timeout` has passed; returns whether it held. The interval
// bounds the poll's cost; it is not a wait for anything to happen.
template <typename Condition>
bool PollUntil(Condition&& condition,
               absl::Duration timeout = absl::Seconds(30),
               absl::Duration interval = absl::Milliseconds(20)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (condition()) return true;
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(interval);
  }
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_POLL_UNTIL_H_
