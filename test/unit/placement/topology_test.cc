#include "placement/topology.h"

#include "catch2/catch.hpp"
#include "placement/options.h"

namespace bk::placement {
namespace {

TEST_CASE("network locations must be slash-separated names", "[placement]") {
  CHECK(ParseNetworkLocation("/region/rack").ok());
  CHECK(ParseNetworkLocation("/rack").ok());
  CHECK_FALSE(ParseNetworkLocation("").ok());
  CHECK_FALSE(ParseNetworkLocation("region/rack").ok());
  CHECK_FALSE(ParseNetworkLocation("/region/").ok());
  CHECK_FALSE(ParseNetworkLocation("/region//rack").ok());
  CHECK_FALSE(ParseNetworkLocation("/reg ion/rack").ok());
  CHECK(NetworkLocationOrDefault("junk") == kDefaultRack);
}

TEST_CASE("default placement options are valid and bad ones are named",
          "[placement]") {
  CHECK(ValidatePlacementOptions(PlacementOptions{}).ok());
  PlacementOptions bad;
  bad.low_load_bookie_ratio = -0.1;
  CHECK(ValidatePlacementOptions(bad).message() ==
        "placement option lowLoadBookieRatio must be in [0, 1]");
  bad = PlacementOptions{};
  bad.adaptive.rank_spread = 2;
  CHECK(ValidatePlacementOptions(bad).code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(*ParseWeighting("adaptive") == Weighting::kAdaptive);
  CHECK_FALSE(ParseWeighting("Adaptive").ok());
}

TEST_CASE("topology tracks writable, read-only and unknown bookies",
          "[placement]") {
  Topology topology;
  topology.SetMembers({{"b2", "/r/2"}, {"b1", ""}}, {{"b3", "/r/3"}});
  CHECK(topology.writable() == std::vector<BookieId>{"b1", "b2"});
  CHECK(topology.State("b1") == BookieState::kWritable);
  CHECK(topology.State("b3") == BookieState::kReadOnly);
  CHECK(topology.State("b9") == BookieState::kUnknown);
  CHECK(topology.Rack("b1") == kDefaultRack);
  CHECK(topology.Rack("b2") == "/r/2");
}

TEST_CASE("topology keeps the newest report and drops departed bookies",
          "[placement]") {
  Topology topology;
  topology.SetMembers({{"b1", "/r/1"}}, {});
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  topology.SetReport("b1", BookieInfo{.free_disk_bytes = 5}, t0);
  topology.SetReport("b1", BookieInfo{.free_disk_bytes = 1},
                     t0 - absl::Seconds(1));
  REQUIRE(topology.Report("b1") != nullptr);
  CHECK(topology.Report("b1")->info.free_disk_bytes == 5);
  topology.SetMembers({{"b2", "/r/2"}}, {});
  CHECK(topology.Report("b1") == nullptr);
}

}  // namespace
}  // namespace bk::placement
