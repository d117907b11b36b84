// What the adaptive policy's estimates learn besides reports: a
// replacement's bookie leaving, and other clients' closes and replacements
// heard through the placement feed.

#include <cstdint>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/rack_aware_policy.h"
#include "placement/weighted_selection.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Id;
using testing::MakeBookies;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// An adaptive policy over b0..b9 (one rack), every bookie reporting
// 10 MiB/s at kNow.
class Fixture {
 public:
  explicit Fixture(uint64_t seed, Weighting weighting = Weighting::kAdaptive)
      : gen_(seed), policy_(Options(weighting), gen_) {
    policy_.OnClusterChanged(MakeBookies(10, 1), {});
    for (int i = 0; i < 10; ++i) {
      policy_.OnBookieInfo(
          Id(i),
          BookieInfo{.journal_io_util = 20,
                     .write_bytes_per_second = 10 * kBytesPerMiB},
          kNow);
    }
    policy_.AdvanceTime(kNow);
  }
  RackAwarePolicy& policy() { return policy_; }
  double Load(const BookieId& id) const {
    return policy_.EstimatedLoads().at(id);
  }

 private:
  static PlacementOptions Options(Weighting weighting) {
    PlacementOptions o;
    o.weighting = weighting;
    return o;
  }
  std::mt19937_64 gen_;
  RackAwarePolicy policy_;
};

// 40 MiB/s over E2/WQ2: a 40 MiB/s slot on each member.
LedgerHints Rate40() {
  LedgerHints hints;
  hints.expected_write_bytes_per_second = 40 * kBytesPerMiB;
  return hints;
}

TEST_CASE(
    "an ensemble change takes the ledger's slot off the replaced bookie and "
    "puts it on the new one",
    "[placement][adaptive]") {
  const uint64_t seed = 83;
  INFO("seed " << seed);
  Fixture f(seed);
  absl::StatusOr<PlacementResult> placed =
      f.policy().NewEnsemble(2, 2, 2, {}, Rate40());
  REQUIRE(placed.ok());
  const std::vector<BookieId> ensemble = placed->ensemble;
  for (const BookieId& id : ensemble) CHECK(f.Load(id) == Approx(50));

  absl::StatusOr<ReplacementResult> r =
      f.policy().ReplaceBookie(ensemble, 0, 2, 2, {}, Rate40());
  REQUIRE(r.ok());
  INFO("replaced " << ensemble[0] << " by " << r->bookie);
  CHECK(f.Load(ensemble[0]) == Approx(10));  // left: its slot is gone
  CHECK(f.Load(ensemble[1]) == Approx(50));  // stays
  CHECK(f.Load(r->bookie) == Approx(50));    // joined: counted as placed
}

TEST_CASE("a placement without a rate leaves every estimate as it was",
          "[placement][adaptive]") {
  const uint64_t seed = 101;
  INFO("seed " << seed);
  Fixture f(seed);
  const auto before = f.policy().EstimatedLoads();
  absl::StatusOr<PlacementResult> placed =
      f.policy().NewEnsemble(2, 2, 2, {}, LedgerHints{});
  REQUIRE(placed.ok());
  absl::StatusOr<ReplacementResult> r =
      f.policy().ReplaceBookie(placed->ensemble, 0, 2, 2, {}, LedgerHints{});
  REQUIRE(r.ok());
  f.policy().OnPlacedElsewhere({Id(3), Id(4)}, 2, LedgerHints{});
  // Before the fix a rate-less slot pended as -1 MiB/s: 9 here.
  CHECK(f.policy().EstimatedLoads() == before);
}

TEST_CASE("a refused replacement leaves every estimate as it was",
          "[placement][adaptive]") {
  const uint64_t seed = 89;
  INFO("seed " << seed);
  Fixture f(seed);
  absl::StatusOr<PlacementResult> placed =
      f.policy().NewEnsemble(2, 2, 2, {}, Rate40());
  REQUIRE(placed.ok());
  const auto before = f.policy().EstimatedLoads();
  // Every other bookie excluded: nothing can replace ensemble[0].
  BookieSet excluded;
  for (int i = 0; i < 10; ++i) excluded.insert(Id(i));
  absl::StatusOr<ReplacementResult> r =
      f.policy().ReplaceBookie(placed->ensemble, 0, 2, 2, excluded, Rate40());
  REQUIRE(IsNotEnoughBookies(r.status()));
  CHECK(f.policy().EstimatedLoads() == before);
}

TEST_CASE(
    "another client's close and replacement heard through the feed move the "
    "estimates as this client's own would",
    "[placement][adaptive]") {
  const uint64_t seed = 97;
  INFO("seed " << seed);
  Fixture f(seed);
  const std::vector<BookieId> ensemble = {Id(2), Id(5)};
  f.policy().OnPlacedElsewhere(ensemble, 2, Rate40());
  CHECK(f.Load(Id(2)) == Approx(50));
  CHECK(f.Load(Id(5)) == Approx(50));
  // b2 left the ledger for b7.
  f.policy().OnReplacedElsewhere(Id(2), Id(7), 2, 2, Rate40());
  CHECK(f.Load(Id(2)) == Approx(10));
  CHECK(f.Load(Id(7)) == Approx(50));
  CHECK(f.Load(Id(5)) == Approx(50));
  // The ledger closed on its last ensemble.
  f.policy().OnClosedElsewhere({Id(7), Id(5)}, 2, Rate40());
  CHECK(f.Load(Id(7)) == Approx(10));
  CHECK(f.Load(Id(5)) == Approx(10));
  // A close without a rate changes nothing.
  f.policy().OnClosedElsewhere({Id(1)}, 1, LedgerHints{});
  CHECK(f.Load(Id(1)) == Approx(10));
}

TEST_CASE("other weightings keep no estimates, whatever they hear",
          "[placement]") {
  for (Weighting w : {Weighting::kNone, Weighting::kDisk, Weighting::kLoad}) {
    INFO("weighting " << WeightingName(w));
    Fixture f(101, w);
    f.policy().OnPlacedElsewhere({Id(2), Id(5)}, 2, Rate40());
    f.policy().OnReplacedElsewhere(Id(2), Id(7), 2, 2, Rate40());
    f.policy().OnClosedElsewhere({Id(7), Id(5)}, 2, Rate40());
    CHECK(f.policy().EstimatedLoads().empty());
  }
}

}  // namespace
}  // namespace bk::placement
