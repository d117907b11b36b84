#include "autorecovery/byte_rate_limiter.h"

#include <catch2/catch.hpp>

namespace bk::autorecovery {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST_CASE(
    "the byte rate limiter spaces what it is given at its rate and credits "
    "idle time only up to its burst",
    "[autorecovery]") {
  ByteRateLimiter l(1000, absl::Milliseconds(100));  // bytes per second
  // 100 ms of credit: the first 100 bytes cost no wait, and the booking that
  // goes beyond them waits only for what exceeds the credit.
  CHECK(l.Reserve(100, kT0) == absl::ZeroDuration());
  CHECK(l.Reserve(500, kT0) == absl::ZeroDuration());
  // Then each booking waits behind everything booked before it.
  CHECK(l.Reserve(500, kT0) == absl::Milliseconds(500));
  CHECK(l.Reserve(500, kT0) == absl::Seconds(1));
  // A minute idle is credited as 100 ms only.
  const absl::Time later = kT0 + absl::Seconds(60);
  CHECK(l.Reserve(100, later) == absl::ZeroDuration());
  CHECK(l.Reserve(100, later) == absl::ZeroDuration());
  CHECK(l.Reserve(100, later) == absl::Milliseconds(100));
}

TEST_CASE("a limiter's default burst is a few milliseconds of its rate",
          "[autorecovery]") {
  ByteRateLimiter l(1 << 20);  // 1 MiB/s; 10 ms are about 10 KiB
  CHECK(l.Reserve(64 << 10, kT0) == absl::ZeroDuration());
  // The next booking waits for the 64 KiB less the 10 ms of credit.
  const absl::Duration wait = l.Reserve(1, kT0);
  CHECK(wait > absl::Milliseconds(50));
  CHECK(wait < absl::Milliseconds(56));
}

TEST_CASE("a limiter without a rate never waits", "[autorecovery]") {
  ByteRateLimiter l(0);
  for (int i = 0; i < 100; ++i) {
    CHECK(l.Reserve(1 << 20, kT0) == absl::ZeroDuration());
  }
}

}  // namespace
}  // namespace bk::autorecovery
