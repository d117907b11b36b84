#include "placement/latency_floor.h"

#include <cmath>

#include "catch2/catch.hpp"
#include "placement/options.h"

namespace bk::placement {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

TEST_CASE("a bookie's floor is the lowest latency it reported", "[placement]") {
  LatencyFloor floor(absl::Minutes(30));
  CHECK(floor.Floor("b1") == -1);
  floor.Learn("b1", 2, kT0);
  CHECK(floor.Floor("b1") == 2);
  floor.Learn("b1", 0.5, kT0 + absl::Seconds(30));
  CHECK(floor.Floor("b1") == 0.5);
  // Unknown (-1), zero (no adds in the window) and not-a-number teach
  // nothing; neither does a report older than the floor.
  floor.Learn("b1", -1, kT0 + absl::Seconds(60));
  floor.Learn("b1", 0, kT0 + absl::Seconds(60));
  floor.Learn("b1", std::nan(""), kT0 + absl::Seconds(60));
  floor.Learn("b1", 0.1, kT0);
  CHECK(floor.Floor("b1") == 0.5);
  CHECK(floor.Floor("b2") == -1);
}

TEST_CASE(
    "a floor rises towards higher reports by 1 - exp(-T / memory) of the "
    "log distance, however often they come",
    "[placement]") {
  const absl::Duration memory = absl::Minutes(30);
  for (const int period_s : {1, 30, 300}) {
    INFO("reports every " << period_s << " s");
    LatencyFloor floor(memory);
    floor.Learn("b1", 0.5, kT0);
    // Slowed tenfold for 10 minutes.
    for (int t = period_s; t <= 600; t += period_s) {
      floor.Learn("b1", 5, kT0 + absl::Seconds(t));
    }
    const double rise = 1 - std::exp(-600.0 / 1800.0);
    CHECK(floor.Floor("b1") ==
          Approx(0.5 * std::pow(10.0, rise)).epsilon(1e-9));
    // Still well under a quarter of the slowed latency: a floor multiple
    // of 4 keeps telling the bookie is slow.
    CHECK(floor.Floor("b1") < 5.0 / 4);
    // Slow for many memories: its own new normal.
    for (int t = 600 + period_s; t <= 6 * 3600; t += period_s) {
      floor.Learn("b1", 5, kT0 + absl::Seconds(t));
    }
    CHECK(floor.Floor("b1") == Approx(5).epsilon(1e-3));
    // Back to health: the floor drops at the first quiet report.
    floor.Learn("b1", 0.5, kT0 + absl::Hours(7));
    CHECK(floor.Floor("b1") == 0.5);
  }
}

TEST_CASE("floors of bookies that left the cluster are forgotten",
          "[placement]") {
  LatencyFloor floor(absl::Minutes(30));
  floor.Learn("b1", 1, kT0);
  floor.Learn("b2", 1, kT0);
  Topology topology;
  topology.SetMembers({{"b2", "/r/2"}}, {});
  floor.Retain(topology);
  CHECK(floor.Floor("b1") == -1);
  CHECK(floor.Floor("b2") == 1);
}

TEST_CASE("the floor's memory must be positive and finite", "[placement]") {
  PlacementOptions options;
  options.adaptive.latency_floor_memory = absl::ZeroDuration();
  CHECK(ValidatePlacementOptions(options).code() ==
        absl::StatusCode::kInvalidArgument);
  options.adaptive.latency_floor_memory = absl::InfiniteDuration();
  CHECK_FALSE(ValidatePlacementOptions(options).ok());
  options.adaptive.latency_floor_memory = absl::Minutes(1);
  options.adaptive.probe_slow_floor_multiple = std::nan("");
  CHECK_FALSE(ValidatePlacementOptions(options).ok());
}

}  // namespace
}  // namespace bk::placement
