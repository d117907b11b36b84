#include "placement/rack_aware_policy.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "catch2/catch.hpp"
#include "placement/rack_coverage.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Counts;
using testing::Id;
using testing::MakeBookies;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

std::vector<std::string> RacksOf(const RackAwarePolicy& policy,
                                 const std::vector<BookieId>& ensemble) {
  std::vector<std::string> racks;
  for (const BookieId& id : ensemble)
    racks.push_back(policy.topology().Rack(id));
  return racks;
}

TEST_CASE(
    "ensembles are exact-size, distinct, writable and honour exclusions "
    "over many seeds",
    "[placement]") {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.weighting = static_cast<Weighting>(seed % 4);
    RackAwarePolicy policy(options, gen);
    const int racks = 1 + static_cast<int>(seed % 4);
    std::vector<BookieNode> writable = MakeBookies(12, racks);
    std::vector<BookieNode> readonly = {writable.back()};
    writable.pop_back();
    policy.OnClusterChanged(writable, readonly);
    for (int i = 0; i < 11; ++i) {
      policy.OnBookieInfo(Id(i),
                          BookieInfo{.free_disk_bytes = 1000 * (i % 3),
                                     .journal_io_util = 10.0 * i,
                                     .write_bytes_per_second = 1e6 * i},
                          kNow - absl::Seconds(i));
    }
    const BookieSet excluded = {Id(static_cast<int>(seed % 11)), "nobody"};
    const int ensemble_size = 1 + static_cast<int>(seed % 8);
    const int write_quorum = 1 + static_cast<int>(seed % ensemble_size);
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(ensemble_size, write_quorum, 1, excluded);
    REQUIRE(result.ok());
    CHECK(static_cast<int>(result->ensemble.size()) == ensemble_size);
    absl::flat_hash_set<BookieId> seen(result->ensemble.begin(),
                                       result->ensemble.end());
    CHECK(seen.size() == result->ensemble.size());
    for (const BookieId& id : result->ensemble) {
      CHECK_FALSE(excluded.contains(id));
      CHECK(policy.topology().State(id) == BookieState::kWritable);
    }
    // A replacement keeps the same properties.
    absl::StatusOr<ReplacementResult> replaced =
        policy.ReplaceBookie(result->ensemble, 0, write_quorum, 1, excluded);
    if (replaced.ok()) {
      CHECK_FALSE(excluded.contains(replaced->bookie));
      CHECK_FALSE(seen.contains(replaced->bookie));
      CHECK(policy.topology().State(replaced->bookie) ==
            BookieState::kWritable);
    } else {
      CHECK(IsNotEnoughBookies(replaced.status()));
    }
  }
}

TEST_CASE("every write quorum spans the required racks", "[placement]") {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.weighting = static_cast<Weighting>(seed % 4);
    options.min_num_racks_per_write_quorum = 2 + static_cast<int>(seed % 2);
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeBookies(9, 3), {});
    // Six slots: three racks can cover every window of three (ABCABC).
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(6, 3, 2, {});
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    const std::vector<std::string> racks = RacksOf(policy, result->ensemble);
    const int m = RequiredRacks(3, options.min_num_racks_per_write_quorum);
    for (int start = 0; start < 6; ++start) {
      absl::flat_hash_set<std::string> quorum;
      for (int k = 0; k < 3; ++k) quorum.insert(racks[(start + k) % 6]);
      CHECK(static_cast<int>(quorum.size()) >= m);
    }
  }
}

TEST_CASE("enforced racks with too few racks fail with NotEnoughBookies",
          "[placement]") {
  std::mt19937_64 gen(7);
  PlacementOptions options;
  options.enforce_min_num_racks_per_write_quorum = true;
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeBookies(6, 1), {});
  absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 2, 2, {});
  CHECK(IsNotEnoughBookies(result.status()));
  CHECK(result.status().code() == absl::StatusCode::kUnavailable);
}

TEST_CASE("enforced racks never use default-rack bookies", "[placement]") {
  std::mt19937_64 gen(8);
  PlacementOptions options;
  options.enforce_min_num_racks_per_write_quorum = true;
  RackAwarePolicy policy(options, gen);
  std::vector<BookieNode> nodes = MakeBookies(4, 1);  // all in /region/r0
  for (int i = 0; i < 4; ++i) nodes.push_back({"d" + std::to_string(i), ""});
  policy.OnClusterChanged(nodes, {});
  // Two racks exist only if the default rack counts: it must not.
  CHECK(IsNotEnoughBookies(policy.NewEnsemble(3, 2, 2, {}).status()));
  // Write quorum 1 needs one rack: only /region/r0 bookies are used.
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 1, 1, {});
    REQUIRE(result.ok());
    for (const BookieId& id : result->ensemble) CHECK(id[0] == 'b');
  }
}

TEST_CASE("unenforced racks with too few racks return adherence FAIL",
          "[placement]") {
  std::mt19937_64 gen(9);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(MakeBookies(6, 1), {});
  absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 2, 2, {});
  REQUIRE(result.ok());
  CHECK(result->ensemble.size() == 3);
  CHECK(result->adherence == Adherence::kFail);
}

TEST_CASE(
    "unenforced racks short of the minimum still spread over the racks "
    "there are",
    "[placement]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.min_num_racks_per_write_quorum = 3;
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeBookies(8, 2), {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(4, 3, 2, {});
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kFail);
    // Two racks are all there are: every write quorum spans both.
    CHECK(JudgeRackAdherence(RacksOf(policy, result->ensemble), 3, 2, false) ==
          Adherence::kMeetsStrict);
  }
}

TEST_CASE("too few eligible bookies is NotEnoughBookies", "[placement]") {
  std::mt19937_64 gen(10);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(MakeBookies(3, 3), MakeBookies(0, 1));
  CHECK(IsNotEnoughBookies(policy.NewEnsemble(3, 2, 2, {Id(0)}).status()));
  CHECK(policy.NewEnsemble(3, 2, 2, {}).ok());
}

TEST_CASE("bad quorums and indices are invalid arguments", "[placement]") {
  std::mt19937_64 gen(11);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(MakeBookies(6, 2), {});
  CHECK(policy.NewEnsemble(3, 4, 2, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(policy.NewEnsemble(3, 2, 3, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(policy.NewEnsemble(3, 2, 0, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(policy.ReplaceBookie({Id(0), Id(1)}, 2, 2, 2, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("replacement prefers the replaced bookie's rack", "[placement]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(PlacementOptions{}, gen);
    policy.OnClusterChanged(MakeBookies(12, 3), {});
    // b0,b3 in r0; b1 in r1; b2 in r2.
    absl::StatusOr<ReplacementResult> result =
        policy.ReplaceBookie({Id(0), Id(1), Id(2)}, 0, 2, 2, {});
    REQUIRE(result.ok());
    CHECK(policy.topology().Rack(result->bookie) == "/region/r0");
    CHECK(result->ensemble[0] == result->bookie);
    CHECK(result->adherence == Adherence::kMeetsStrict);
  }
}

TEST_CASE("replacement falls to a rack no other member uses", "[placement]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(PlacementOptions{}, gen);
    // r0: b0 only; r1: b1,b5; r2: b2,b6; r3: b3,b7 (b4 read-only).
    std::vector<BookieNode> nodes = {
        {Id(0), "/region/r0"}, {Id(1), "/region/r1"}, {Id(5), "/region/r1"},
        {Id(2), "/region/r2"}, {Id(6), "/region/r2"}, {Id(3), "/region/r3"},
        {Id(7), "/region/r3"}};
    policy.OnClusterChanged(nodes, {{Id(4), "/region/r0"}});
    absl::StatusOr<ReplacementResult> result =
        policy.ReplaceBookie({Id(0), Id(1), Id(2)}, 0, 3, 2, {});
    REQUIRE(result.ok());
    CHECK(policy.topology().Rack(result->bookie) == "/region/r3");
  }
}

TEST_CASE(
    "enforced replacement with no usable rack is NotEnoughBookies, "
    "unenforced returns FAIL",
    "[placement]") {
  std::vector<BookieNode> nodes = {
      {Id(0), "/region/r0"}, {Id(1), "/region/r1"}, {Id(2), "/region/r1"}};
  std::mt19937_64 gen(12);
  PlacementOptions enforced;
  enforced.enforce_min_num_racks_per_write_quorum = true;
  RackAwarePolicy strict(enforced, gen);
  strict.OnClusterChanged(nodes, {});
  CHECK(IsNotEnoughBookies(
      strict.ReplaceBookie({Id(0), Id(1)}, 0, 2, 2, {}).status()));

  RackAwarePolicy lenient(PlacementOptions{}, gen);
  lenient.OnClusterChanged(nodes, {});
  absl::StatusOr<ReplacementResult> result =
      lenient.ReplaceBookie({Id(0), Id(1)}, 0, 2, 2, {});
  REQUIRE(result.ok());
  CHECK(result->bookie == Id(2));
  CHECK(result->adherence == Adherence::kFail);
}

TEST_CASE("quarantined bookies are skipped unless the cluster is too small",
          "[placement]") {
  std::mt19937_64 gen(13);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(MakeBookies(4, 2), {});
  policy.AdvanceTime(kNow);
  policy.Quarantine(Id(0), kNow + absl::Minutes(1));
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 3, 2, {});
    REQUIRE(result.ok());
    CHECK(std::find(result->ensemble.begin(), result->ensemble.end(), Id(0)) ==
          result->ensemble.end());
    CHECK(result->adherence == Adherence::kMeetsStrict);
  }
  // Four needed: the quarantined one is used, and the result is soft.
  absl::StatusOr<PlacementResult> all = policy.NewEnsemble(4, 2, 2, {});
  REQUIRE(all.ok());
  CHECK(all->adherence == Adherence::kMeetsSoft);
  // A quarantined member that stays in the ensemble does not make a
  // replacement soft: only what the policy chose counts.
  absl::StatusOr<ReplacementResult> replaced =
      policy.ReplaceBookie({Id(0), Id(1), Id(2)}, 1, 3, 2, {});
  REQUIRE(replaced.ok());
  CHECK(replaced->bookie == Id(3));
  CHECK(replaced->adherence == Adherence::kMeetsStrict);
  // Once the quarantine ends the bookie is an ordinary member again.
  policy.AdvanceTime(kNow + absl::Minutes(2));
  all = policy.NewEnsemble(4, 2, 2, {});
  REQUIRE(all.ok());
  CHECK(all->adherence == Adherence::kMeetsStrict);
}

TEST_CASE("disk weighting reaches the policy's choice, capped at 3x median",
          "[placement]") {
  const uint64_t seed = 14;
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  PlacementOptions options;
  options.weighting = Weighting::kDisk;
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeBookies(5, 5), {});
  for (int i = 0; i < 4; ++i) {
    policy.OnBookieInfo(Id(i), BookieInfo{.free_disk_bytes = 1000}, kNow);
  }
  policy.OnBookieInfo(Id(4), BookieInfo{.free_disk_bytes = 1'000'000}, kNow);
  Counts counts;
  constexpr int kDraws = 35000;
  for (int i = 0; i < kDraws; ++i) {
    absl::StatusOr<PlacementResult> r = policy.NewEnsemble(1, 1, 1, {});
    REQUIRE(r.ok());
    ++counts[r->ensemble[0]];
  }
  // Weights 1,1,1,1,3 (capped): shares 1/7 and 3/7.
  CHECK(counts[Id(4)] == Approx(15000).epsilon(0.05));
  CHECK(counts[Id(0)] == Approx(5000).epsilon(0.08));
}

TEST_CASE(
    "load weighting never picks an over-threshold bookie while enough "
    "are under it",
    "[placement]") {
  std::mt19937_64 gen(15);
  PlacementOptions options;
  options.weighting = Weighting::kLoad;
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeBookies(6, 3), {});
  for (int i = 0; i < 6; ++i) {
    policy.OnBookieInfo(
        Id(i), BookieInfo{.journal_io_util = i == 0 ? 95.0 : 20.0}, kNow);
  }
  for (int i = 0; i < 500; ++i) {
    absl::StatusOr<PlacementResult> r = policy.NewEnsemble(3, 2, 2, {});
    REQUIRE(r.ok());
    CHECK(std::find(r->ensemble.begin(), r->ensemble.end(), Id(0)) ==
          r->ensemble.end());
  }
}

TEST_CASE("the policy's read order puts down and read-only replicas last",
          "[placement]") {
  std::mt19937_64 gen(16);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(MakeBookies(2, 2), {{"ro", "/region/r0"}});
  std::vector<BookieId> ensemble = {"gone", "ro", Id(0), Id(1)};
  CHECK(policy.ReorderReadSequence(ensemble, {0, 1, 2}, {}) ==
        std::vector<int>{2, 1, 0});
}

}  // namespace
}  // namespace bk::placement

namespace bk::placement {
namespace {

TEST_CASE(
    "a client shares its new ledgers only with adaptive weighting, the "
    "option on, and polls within least_loaded_report_age",
    "[placement]") {
  PlacementOptions o;
  o.weighting = Weighting::kAdaptive;
  // 2 s by default: a 1 s poll with 20 % jitter (1.2 s at most) shares, a
  // 5 s poll does not, nor does 1.8 s with 20 % jitter (2.16 s).
  CHECK(SharesNewLedgers(o, absl::Seconds(1), 0.2));
  CHECK(SharesNewLedgers(o, absl::Seconds(2), 0));
  CHECK_FALSE(SharesNewLedgers(o, absl::Seconds(5), 0.2));
  CHECK_FALSE(SharesNewLedgers(o, absl::Milliseconds(1800), 0.2));
  PlacementOptions off = o;
  off.adaptive.share_new_ledgers = false;
  CHECK_FALSE(SharesNewLedgers(off, absl::Seconds(1), 0.2));
  PlacementOptions never = o;
  never.adaptive.least_loaded_report_age = absl::ZeroDuration();
  CHECK_FALSE(SharesNewLedgers(never, absl::Seconds(1), 0));
  for (Weighting w : {Weighting::kNone, Weighting::kDisk, Weighting::kLoad}) {
    PlacementOptions other = o;
    other.weighting = w;
    CHECK_FALSE(SharesNewLedgers(other, absl::Seconds(1), 0.2));
  }
}

}  // namespace
}  // namespace bk::placement
