// PauseGuard: tells the client's maintenance tick whether it may judge add
// timeouts, or whether the process has just been paused.
//
// The tick runs every 100 ms on the timer's thread. When the whole process
// stops (SIGSTOP, a frozen VM, a host swapping it out) for longer than an
// add's timeout, every add in flight looks timed out on resume. But the
// bookies answered them during the pause; the answers wait unread in the
// sockets, and the tick may run before gRPC's threads read them. Judging
// then fails every bookie of every ledger at once, for nothing.
//
// So a tick that comes more than `late_after` after the one before (read on
// the timer's own clock, the real one: a test's ClockEnv moving the
// client's clock does not make a tick late) starts a hold: no timeout is
// judged until `hold` has passed since that tick. The adds are then judged
// on the client's clock as always, pause included, so a bookie that really
// died during the pause is replaced `hold` later than it would have been.
//
// Not thread-safe: owned by the tick.

#ifndef BK_CLIENT_INTERNAL_PAUSE_GUARD_H_
#define BK_CLIENT_INTERNAL_PAUSE_GUARD_H_

#include "absl/time/time.h"

namespace bk::client::internal {

class PauseGuard {
 public:
  PauseGuard(absl::Duration late_after, absl::Duration hold)
      : late_after_(late_after), hold_(hold) {}

  struct Verdict {
    // Timeouts may be judged at this tick.
    bool judge = true;
    // Non-zero only on the tick that ends a pause: how long since the tick
    // before it.
    absl::Duration paused = absl::ZeroDuration();
  };

  // Called once per tick with the timer's clock.
  Verdict OnTick(absl::Time now) {
    Verdict v;
    if (last_ != absl::InfinitePast() && now - last_ > late_after_) {
      v.paused = now - last_;
      hold_until_ = now + hold_;
    }
    last_ = now;
    v.judge = now >= hold_until_;
    return v;
  }

 private:
  const absl::Duration late_after_;
  const absl::Duration hold_;
  absl::Time last_ = absl::InfinitePast();
  absl::Time hold_until_ = absl::InfinitePast();
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_PAUSE_GUARD_H_
