#include "placement/load_drift.h"

#include "catch2/catch.hpp"

namespace bk::placement {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

TEST_CASE(
    "before any report pair the forecast is the report, unknown stays "
    "unknown",
    "[placement]") {
  LoadDrift d(absl::Minutes(2));
  CHECK(d.Forecast(12, absl::Seconds(30)) == 12);
  CHECK(d.Forecast(-1, absl::Seconds(30)) == -1);
  CHECK(d.DriftPerSecond(12) == 0);
}

TEST_CASE(
    "each load bin learns how its bookies moved between reports, and a "
    "stale report is brought forward by it",
    "[placement]") {
  LoadDrift d(absl::Minutes(2));
  // Many polls 30 s apart: bookies reported at 5 MiB/s (a quarter of the
  // mean) were at 20 the next time; those at 40 (twice) fell to 34.
  for (int poll = 0; poll < 200; ++poll) {
    const absl::Time at = kT0 + absl::Seconds(30 * poll);
    for (int k = 0; k < 5; ++k) {
      d.Learn(5, at, 20, at + absl::Seconds(30));
      d.Learn(20, at, 20, at + absl::Seconds(30));
      d.Learn(40, at, 34, at + absl::Seconds(30));
    }
  }
  INFO("mean " << d.mean());
  CHECK(d.mean() == Approx(65.0 / 3).epsilon(0.05));
  CHECK(d.DriftPerSecond(5) == Approx(0.5).epsilon(0.01));
  CHECK(d.DriftPerSecond(40) == Approx(-0.2).epsilon(0.01));
  CHECK(d.DriftPerSecond(20) == Approx(0).margin(1e-6));
  // Brought forward by the age; ages beyond the maximum count as it; never
  // below zero.
  CHECK(d.Forecast(5, absl::Seconds(10)) == Approx(10));
  CHECK(d.Forecast(5, absl::Minutes(10)) == Approx(5 + 0.5 * 120));
  CHECK(d.Forecast(40, absl::Seconds(30)) == Approx(34));
  CHECK(d.Forecast(40, absl::Seconds(-5)) == Approx(40));
}

TEST_CASE("report pairs too far apart, out of order or unknown teach nothing",
          "[placement]") {
  LoadDrift d(absl::Minutes(2));
  d.Learn(5, kT0, 50, kT0 + absl::Minutes(3));  // beyond the maximum age
  d.Learn(5, kT0, 50, kT0);                     // no time between them
  d.Learn(5, kT0 + absl::Seconds(1), 50, kT0);  // out of order
  d.Learn(-1, kT0, 50, kT0 + absl::Seconds(30));
  d.Learn(5, kT0, -1, kT0 + absl::Seconds(30));
  CHECK(d.DriftPerSecond(5) == 0);
  CHECK(d.mean() == 0);
  LoadDrift off(absl::ZeroDuration());
  off.Learn(5, kT0, 50, kT0 + absl::Seconds(30));
  CHECK(off.Forecast(5, absl::Seconds(30)) == 5);
}

}  // namespace
}  // namespace bk::placement
