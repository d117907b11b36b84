#include "autorecovery/byte_rate_limiter.h"

#include <catch2/catch.hpp>

namespace bk::autorecovery {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST_CASE(
    "the byte rate limiter spaces batches at its rate, with one "
    "second of burst",
    "[autorecovery]") {
  ByteRateLimiter l(1000);  // bytes per second
  // A second of credit: the first 1000 bytes go at once.
  CHECK(l.Reserve(500, kT0) == absl::ZeroDuration());
  CHECK(l.Reserve(500, kT0) == absl::ZeroDuration());
  // Then each 500 bytes waits half a second behind the previous.
  CHECK(l.Reserve(500, kT0) == absl::ZeroDuration());
  CHECK(l.Reserve(500, kT0) == absl::Milliseconds(500));
  CHECK(l.Reserve(500, kT0) == absl::Seconds(1));
  // Idle time is credited up to one second only.
  CHECK(l.Reserve(1000, kT0 + absl::Seconds(60)) == absl::ZeroDuration());
  CHECK(l.Reserve(1000, kT0 + absl::Seconds(60)) == absl::ZeroDuration());
  CHECK(l.Reserve(1000, kT0 + absl::Seconds(60)) == absl::Seconds(1));
}

TEST_CASE("a limiter without a rate never waits", "[autorecovery]") {
  ByteRateLimiter l(0);
  for (int i = 0; i < 100; ++i) {
    CHECK(l.Reserve(1 << 20, kT0) == absl::ZeroDuration());
  }
}

}  // namespace
}  // namespace bk::autorecovery
