#include "placement/rack_coverage.h"

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/topology.h"

namespace bk::placement {
namespace {

TEST_CASE("required racks are the smaller of write quorum and the minimum",
          "[placement]") {
  CHECK(RequiredRacks(3, 2) == 2);
  CHECK(RequiredRacks(1, 2) == 1);
  CHECK(RequiredRacks(5, 3) == 3);
  CHECK(RequiredRacks(3, 0) == 1);
}

TEST_CASE("adherence fails when a write quorum sits in one rack",
          "[placement]") {
  std::vector<std::string> racks = {"/a/1", "/a/1", "/a/2", "/a/2"};
  // WQ 2: quorum {0,1} is all rack 1.
  CHECK(JudgeRackAdherence(racks, 2, 2, false) == Adherence::kFail);
  // WQ 3: every window of 3 holds both racks.
  CHECK(JudgeRackAdherence(racks, 3, 2, false) == Adherence::kMeetsStrict);
  // WQ 1 needs one rack only.
  CHECK(JudgeRackAdherence(racks, 1, 2, false) == Adherence::kMeetsStrict);
}

TEST_CASE("enforced adherence fails on a default-rack member", "[placement]") {
  std::vector<std::string> racks = {"/a/1", std::string(kDefaultRack), "/a/2"};
  CHECK(JudgeRackAdherence(racks, 3, 2, false) == Adherence::kMeetsStrict);
  CHECK(JudgeRackAdherence(racks, 3, 2, true) == Adherence::kFail);
}

TEST_CASE("coverage refuses a rack that would leave a quorum short",
          "[placement]") {
  // E 3, WQ 3, m 2: two slots of rack 1 force the third elsewhere.
  RackCoverage coverage(3, 3, 2);
  CHECK(coverage.CanPlace(0, "/a/1"));
  coverage.Place(0, "/a/1");
  CHECK(coverage.CanPlace(1, "/a/1"));
  coverage.Place(1, "/a/1");
  CHECK_FALSE(coverage.CanPlace(2, "/a/1"));
  CHECK(coverage.CanPlace(2, "/a/2"));
}

TEST_CASE("coverage checks quorums that wrap around the ensemble",
          "[placement]") {
  // E 4, WQ 2, m 2: slot 3 neighbours slots 2 and 0.
  RackCoverage coverage(4, 2, 2);
  coverage.Place(0, "/a/1");
  coverage.Place(1, "/a/2");
  coverage.Place(2, "/a/3");
  CHECK_FALSE(coverage.CanPlace(3, "/a/1"));
  CHECK_FALSE(coverage.CanPlace(3, "/a/3"));
  CHECK(coverage.CanPlace(3, "/a/2"));
}

}  // namespace
}  // namespace bk::placement
