// PauseGuard: a late maintenance tick holds the add timeouts' judgment.

#include "client/internal/pause_guard.h"

#include <catch2/catch.hpp>

namespace bk::client::internal {
namespace {

constexpr absl::Duration kTick = absl::Milliseconds(100);

TEST_CASE("ticks on time always judge", "[client]") {
  PauseGuard g(absl::Seconds(1), absl::Seconds(1));
  absl::Time t = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 50; ++i, t += kTick) {
    const PauseGuard::Verdict v = g.OnTick(t);
    CHECK(v.judge);
    CHECK(v.paused == absl::ZeroDuration());
  }
  // A tick slowed by a busy machine but under the limit is no pause.
  const PauseGuard::Verdict v = g.OnTick(t + absl::Milliseconds(900));
  CHECK(v.judge);
  CHECK(v.paused == absl::ZeroDuration());
}

TEST_CASE(
    "a tick after a pause judges nothing until the hold has passed, then "
    "judges again",
    "[client]") {
  PauseGuard g(absl::Seconds(1), absl::Seconds(1));
  absl::Time t = absl::FromUnixSeconds(1000);
  REQUIRE(g.OnTick(t).judge);
  // The process stopped for 5 s (SIGSTOP): the next tick is that late.
  t += absl::Seconds(5);
  PauseGuard::Verdict v = g.OnTick(t);
  CHECK_FALSE(v.judge);
  CHECK(v.paused == absl::Seconds(5));
  // On-time ticks within the hold judge nothing and report no pause.
  for (int i = 0; i < 9; ++i) {
    t += kTick;
    v = g.OnTick(t);
    INFO(i);
    CHECK_FALSE(v.judge);
    CHECK(v.paused == absl::ZeroDuration());
  }
  t += kTick;  // one second after the late tick
  v = g.OnTick(t);
  CHECK(v.judge);
  CHECK(g.OnTick(t + kTick).judge);
}

TEST_CASE("a second pause within the hold starts the hold again", "[client]") {
  PauseGuard g(absl::Seconds(1), absl::Seconds(1));
  absl::Time t = absl::FromUnixSeconds(1000);
  REQUIRE(g.OnTick(t).judge);
  t += absl::Seconds(3);
  REQUIRE_FALSE(g.OnTick(t).judge);
  t += absl::Milliseconds(500);
  REQUIRE_FALSE(g.OnTick(t).judge);
  t += absl::Seconds(2);  // paused again
  PauseGuard::Verdict v = g.OnTick(t);
  CHECK_FALSE(v.judge);
  CHECK(v.paused == absl::Seconds(2));
  // The hold counts from the second late tick, not the first.
  CHECK_FALSE(g.OnTick(t + absl::Milliseconds(900)).judge);
  CHECK(g.OnTick(t + absl::Seconds(1)).judge);
}

TEST_CASE("the first tick has nothing to be late against", "[client]") {
  PauseGuard g(absl::Seconds(1), absl::Seconds(1));
  const PauseGuard::Verdict v = g.OnTick(absl::FromUnixSeconds(1'000'000));
  CHECK(v.judge);
  CHECK(v.paused == absl::ZeroDuration());
}

}  // namespace
}  // namespace bk::client::internal
