// The region mode of the placement policy: BookKeeper's region-aware test
// behaviours, written anew.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "catch2/catch.hpp"
#include "placement/rack_aware_policy.h"
#include "placement/region_coverage.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Counts;
using testing::Id;
using testing::MakeRegionBookies;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

PlacementOptions RegionOptionsWith(Weighting weighting) {
  PlacementOptions options;
  options.weighting = weighting;
  options.region.enabled = true;
  return options;
}

std::vector<std::string> RegionsOf(const RackAwarePolicy& policy,
                                   const std::vector<BookieId>& ensemble) {
  std::vector<std::string> regions;
  for (const BookieId& id : ensemble) {
    regions.push_back(policy.topology().Region(id));
  }
  return regions;
}

// True when every entry of the ledger keeps a copy outside `lost` whatever
// ack quorum of its write set answered first: what "losing a region loses
// no acknowledged entry" means, checked by enumerating ack quorums.
bool SurvivesLoss(const std::vector<std::string>& regions, int write_quorum,
                  int ack_quorum, const std::string& lost) {
  const int n = static_cast<int>(regions.size());
  for (int entry = 0; entry < n; ++entry) {
    // Every subset of the write set of size ack_quorum, as a bit mask.
    for (int mask = 0; mask < (1 << write_quorum); ++mask) {
      if (__builtin_popcount(mask) != ack_quorum) continue;
      bool kept = false;
      for (int k = 0; k < write_quorum; ++k) {
        if ((mask >> k & 1) && regions[(entry + k) % n] != lost) kept = true;
      }
      if (!kept) return false;
    }
  }
  return true;
}

TEST_CASE("durability: the d-1 fullest regions hold fewer than AQ",
          "[placement]") {
  CHECK(MeetsDurability({1, 1, 1}, 2, 2));
  CHECK_FALSE(MeetsDurability({2, 1}, 2, 2));
  CHECK(MeetsDurability({2, 2, 2}, 2, 3));
  CHECK_FALSE(MeetsDurability({2, 2, 2}, 3, 3));  // two regions hold 4 >= 3
  CHECK(MeetsDurability({3}, 1, 1));              // d <= 1: no rule
  const RegionRule rule{3, 3, 2, 2, 2};
  const std::vector<std::string> spread = {"a", "b", "c"};
  const std::vector<std::string> racks = {"/a/1", "/b/1", "/c/1"};
  CHECK(JudgeRegionAdherence(spread, racks, rule, false) ==
        Adherence::kMeetsStrict);
  const std::vector<std::string> doubled = {"a", "a", "c"};
  const std::vector<std::string> doubled_racks = {"/a/1", "/a/2", "/c/1"};
  CHECK(JudgeRegionAdherence(doubled, doubled_racks, rule, false) ==
        Adherence::kFail);
  // Two members of one region on one rack break the rack rule inside it.
  const RegionRule wide{4, 4, 3, 2, 2};
  CHECK(JudgeRegionAdherence({"a", "a", "b", "b"},
                             {"/a/1", "/a/1", "/b/1", "/b/2"}, wide,
                             false) == Adherence::kFail);
  CHECK(JudgeRegionAdherence({"a", "a", "b", "b"},
                             {"/a/1", "/a/2", "/b/1", "/b/2"}, wide,
                             false) == Adherence::kMeetsStrict);
}

TEST_CASE("region-aware ensembles span the required regions over many seeds",
          "[placement]") {
  struct Shape {
    int e, wq, aq;
  };
  const Shape shapes[] = {{3, 3, 2}, {6, 3, 2}, {5, 2, 2}, {6, 6, 4},
                          {4, 2, 2}, {9, 3, 2}, {5, 5, 3}};
  for (uint64_t seed = 1; seed <= 140; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options =
        RegionOptionsWith(static_cast<Weighting>(seed % 4));
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeRegionBookies(18, 3, 3), {});
    for (int i = 0; i < 18; ++i) {
      policy.OnBookieInfo(Id(i),
                          BookieInfo{.free_disk_bytes = 1000 + 100 * i,
                                     .journal_io_util = 3.0 * i,
                                     .write_bytes_per_second = 1e6 * i},
                          kNow);
    }
    const Shape& s = shapes[seed % std::size(shapes)];
    INFO("E" << s.e << " WQ" << s.wq << " AQ" << s.aq);
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(s.e, s.wq, s.aq, {});
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    const std::vector<std::string> regions =
        RegionsOf(policy, result->ensemble);
    for (const char* lost : {"g0", "g1", "g2"}) {
      CHECK(SurvivesLoss(regions, s.wq, s.aq, lost));
    }
    // Spread as evenly as the shape allows: region counts differ by <= 1.
    absl::flat_hash_map<std::string, int> per_region;
    for (const std::string& r : regions) ++per_region[r];
    int lo = s.e, hi = 0;
    for (const char* r : {"g0", "g1", "g2"}) {
      lo = std::min(lo, per_region[r]);
      hi = std::max(hi, per_region[r]);
    }
    CHECK(hi - lo <= 1);
  }
}

TEST_CASE("E3 WQ3 AQ2 over three regions puts one replica in each",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
    policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 3, 2, {});
    REQUIRE(result.ok());
    const std::vector<std::string> regions =
        RegionsOf(policy, result->ensemble);
    CHECK(absl::flat_hash_set<std::string>(regions.begin(), regions.end())
              .size() == 3);
  }
}

TEST_CASE("minNumRacksPerWriteQuorum holds inside each region", "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
    // Two regions of two racks, three bookies per rack.
    policy.OnClusterChanged(MakeRegionBookies(12, 2, 2), {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(4, 4, 3, {});
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    // Two members per region, on two racks.
    absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> racks;
    for (const BookieId& id : result->ensemble) {
      racks[policy.topology().Region(id)].insert(policy.topology().Rack(id));
    }
    REQUIRE(racks.size() == 2);
    for (const auto& [region, set] : racks) CHECK(set.size() == 2);
  }
}

TEST_CASE("the client's own region holds the first member", "[placement]") {
  Counts first_regions;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options = RegionOptionsWith(Weighting::kNone);
    options.region.local_region = "g2";
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 3, 2, {});
    REQUIRE(result.ok());
    CHECK(policy.topology().Region(result->ensemble[0]) == "g2");
    CHECK(result->adherence == Adherence::kMeetsStrict);
    // Without a local region the first member is spread.
    std::mt19937_64 gen2(seed);
    RackAwarePolicy plain(RegionOptionsWith(Weighting::kNone), gen2);
    plain.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
    absl::StatusOr<PlacementResult> other = plain.NewEnsemble(3, 3, 2, {});
    REQUIRE(other.ok());
    ++first_regions[plain.topology().Region(other->ensemble[0])];
  }
  INFO("seeds 1..100");
  CHECK(first_regions.size() == 3);
  for (const auto& [region, count] : first_regions) CHECK(count >= 20);
}

TEST_CASE("a local region without eligible bookies does not block placement",
          "[placement]") {
  std::mt19937_64 gen(3);
  PlacementOptions options = RegionOptionsWith(Weighting::kNone);
  options.region.local_region = "g0";
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  absl::StatusOr<PlacementResult> result =
      policy.NewEnsemble(2, 2, 2, {Id(0), Id(3), Id(6)});  // all of g0
  REQUIRE(result.ok());
  for (const BookieId& id : result->ensemble) {
    CHECK(policy.topology().Region(id) != "g0");
  }
}

TEST_CASE("a region short of bookies gives what it has, the others the rest",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
    // g0 has one bookie, g1 and g2 five each.
    std::vector<BookieNode> nodes = {{"a0", "/g0/k0"}};
    for (int i = 0; i < 5; ++i) {
      nodes.push_back({absl::StrCat("b", i), absl::StrCat("/g1/k", i % 2)});
      nodes.push_back({absl::StrCat("c", i), absl::StrCat("/g2/k", i % 2)});
    }
    policy.OnClusterChanged(nodes, {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(6, 6, 4, {});
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    absl::flat_hash_map<std::string, int> per_region;
    for (const std::string& r : RegionsOf(policy, result->ensemble)) {
      ++per_region[r];
    }
    CHECK(per_region["g0"] == 1);
    CHECK(per_region["g1"] + per_region["g2"] == 5);
    CHECK(per_region["g1"] <= 3);  // durability: no region holds AQ
    CHECK(per_region["g2"] <= 3);
  }
}

TEST_CASE("fewer regions than the durability minimum is NotEnoughBookies",
          "[placement]") {
  std::mt19937_64 gen(5);
  RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
  policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  // Only g1 left.
  const BookieSet others = {Id(0), Id(3), Id(6), Id(2), Id(5), Id(8)};
  absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 3, 2, others);
  CHECK(IsNotEnoughBookies(result.status()));
  // Two regions cannot give E3 WQ3 AQ2 either: one would hold two of three.
  CHECK(IsNotEnoughBookies(
      policy.NewEnsemble(3, 3, 2, {Id(0), Id(3), Id(6)}).status()));
  // With durability off the single region still takes the ensemble, over
  // its racks.
  std::mt19937_64 gen2(5);
  PlacementOptions options = RegionOptionsWith(Weighting::kNone);
  options.region.min_regions_for_durability = 1;
  RackAwarePolicy relaxed(options, gen2);
  relaxed.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  absl::StatusOr<PlacementResult> single = relaxed.NewEnsemble(3, 3, 1, others);
  REQUIRE(single.ok());
  absl::flat_hash_set<std::string> racks;
  for (const BookieId& id : single->ensemble) {
    CHECK(relaxed.topology().Region(id) == "g1");
    racks.insert(relaxed.topology().Rack(id));
  }
  CHECK(racks.size() >= 2);  // minNumRacksPerWriteQuorum = 2
}

TEST_CASE("an ack quorum below the durability minimum is an invalid argument",
          "[placement]") {
  std::mt19937_64 gen(6);
  RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
  policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  CHECK(policy.NewEnsemble(3, 3, 1, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(policy.ReplaceBookie({Id(0), Id(1), Id(2)}, 0, 3, 1, {})
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("reppRegionsToWrite limits the regions used", "[placement]") {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options = RegionOptionsWith(Weighting::kNone);
    options.region.regions_to_write = {"g0", "g2"};
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeRegionBookies(12, 3, 2), {});
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(4, 2, 2, {});
    REQUIRE(result.ok());
    for (const std::string& r : RegionsOf(policy, result->ensemble)) {
      CHECK(r != "g1");
    }
  }
}

TEST_CASE("replacement keeps durability: same rack, then same region",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(RegionOptionsWith(static_cast<Weighting>(seed % 4)),
                           gen);
    // 18 bookies: 3 regions x 3 racks x 2. b0 and b9 share /g0/k0.
    policy.OnClusterChanged(MakeRegionBookies(18, 3, 3), {});
    const std::vector<BookieId> ensemble = {Id(0), Id(1), Id(2)};
    absl::StatusOr<ReplacementResult> same_rack =
        policy.ReplaceBookie(ensemble, 0, 3, 2, {});
    REQUIRE(same_rack.ok());
    CHECK(same_rack->bookie == Id(9));
    CHECK(same_rack->adherence == Adherence::kMeetsStrict);
    // Without b9, another bookie of g0.
    absl::StatusOr<ReplacementResult> same_region =
        policy.ReplaceBookie(ensemble, 0, 3, 2, {Id(9)});
    REQUIRE(same_region.ok());
    CHECK(policy.topology().Region(same_region->bookie) == "g0");
    CHECK(same_region->adherence == Adherence::kMeetsStrict);
  }
}

TEST_CASE(
    "replacement after a region is lost: enforced durability refuses, "
    "unenforced falls back",
    "[placement]") {
  std::mt19937_64 gen(12);
  RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
  std::vector<BookieNode> nodes = MakeRegionBookies(9, 3, 3);
  const std::vector<BookieId> ensemble = {Id(0), Id(1), Id(2)};
  // Region g0 is gone: its bookies left the cluster.
  std::vector<BookieNode> alive;
  for (const BookieNode& n : nodes) {
    if (n.network_location.rfind("/g0/", 0) != 0) alive.push_back(n);
  }
  policy.OnClusterChanged(alive, {});
  absl::StatusOr<ReplacementResult> enforced =
      policy.ReplaceBookie(ensemble, 0, 3, 2, {});
  CHECK(IsNotEnoughBookies(enforced.status()));

  std::mt19937_64 gen2(12);
  PlacementOptions options = RegionOptionsWith(Weighting::kNone);
  options.region.enforce_durability_in_replace = false;
  RackAwarePolicy relaxed(options, gen2);
  relaxed.OnClusterChanged(alive, {});
  absl::StatusOr<ReplacementResult> fallback =
      relaxed.ReplaceBookie(ensemble, 0, 3, 2, {});
  REQUIRE(fallback.ok());
  CHECK(relaxed.topology().Region(fallback->bookie) != "g0");
  CHECK(fallback->adherence == Adherence::kFail);
}

TEST_CASE("replacement across regions keeps every ack quorum in two regions",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(RegionOptionsWith(Weighting::kNone), gen);
    policy.OnClusterChanged(MakeRegionBookies(18, 3, 3), {});
    // Two members per region; any region may hold three (AQ - 1).
    absl::StatusOr<PlacementResult> placed = policy.NewEnsemble(6, 6, 4, {});
    REQUIRE(placed.ok());
    // Every bookie of the replaced member's region is excluded.
    const int index = static_cast<int>(seed % 6);
    const std::string region =
        policy.topology().Region(placed->ensemble[index]);
    BookieSet excluded;
    for (int i = 0; i < 18; ++i) {
      if (policy.topology().Region(Id(i)) == region) excluded.insert(Id(i));
    }
    absl::StatusOr<ReplacementResult> replaced =
        policy.ReplaceBookie(placed->ensemble, index, 6, 4, excluded);
    REQUIRE(replaced.ok());
    CHECK(policy.topology().Region(replaced->bookie) != region);
    CHECK(replaced->adherence == Adherence::kMeetsStrict);
    const std::vector<std::string> regions =
        RegionsOf(policy, replaced->ensemble);
    for (const char* lost : {"g0", "g1", "g2"}) {
      CHECK(SurvivesLoss(regions, 6, 4, lost));
    }
  }
}

// Seeded counts: inside the region rule each weighting still chooses by its
// weights. One region per slot (E3 WQ3 AQ2 over 3 regions of 3 bookies), so
// the rule fixes the region and the weighting picks the bookie.
Counts DrawMany(Weighting weighting, uint64_t seed, int draws,
                const std::vector<BookieInfo>& infos) {
  std::mt19937_64 gen(seed);
  RackAwarePolicy policy(RegionOptionsWith(weighting), gen);
  policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  for (int i = 0; i < 9; ++i) policy.OnBookieInfo(Id(i), infos[i], kNow);
  Counts counts;
  for (int d = 0; d < draws; ++d) {
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 3, 2, {});
    REQUIRE(result.ok());
    REQUIRE(result->adherence == Adherence::kMeetsStrict);
    for (const BookieId& id : result->ensemble) ++counts[id];
  }
  return counts;
}

TEST_CASE("seeded counts: every weighting chooses inside the region rule",
          "[placement]") {
  const uint64_t seed = 2026;
  INFO("seed " << seed);
  const int draws = 1500;
  std::vector<BookieInfo> infos(9);
  for (int i = 0; i < 9; ++i) {
    infos[i] = BookieInfo{.free_disk_bytes = 1000,
                          .journal_io_util = 20,
                          .write_bytes_per_second = 10e6};
  }
  // b0 (g0): three times the free disk of its region's others; b1 (g1):
  // journal above loadThreshold (70) and the adaptive avoid line (90).
  infos[0].free_disk_bytes = 3000;
  infos[1].journal_io_util = 95;

  SECTION("none: uniform inside each region") {
    Counts c = DrawMany(Weighting::kNone, seed, draws, infos);
    for (int i = 0; i < 9; ++i) {
      INFO("bookie " << i << " chosen " << c[Id(i)]);
      CHECK(c[Id(i)] > draws / 3 * 0.8);
      CHECK(c[Id(i)] < draws / 3 * 1.2);
    }
  }
  SECTION("disk: the bookie with 3x the free disk wins 3 of 5 in g0") {
    Counts c = DrawMany(Weighting::kDisk, seed, draws, infos);
    INFO("b0 " << c[Id(0)] << " b3 " << c[Id(3)] << " b6 " << c[Id(6)]);
    CHECK(c[Id(0)] + c[Id(3)] + c[Id(6)] == draws);
    CHECK(c[Id(0)] > draws * 0.55);
    CHECK(c[Id(0)] < draws * 0.65);
  }
  SECTION("load: the busy journal is left out of g1") {
    Counts c = DrawMany(Weighting::kLoad, seed, draws, infos);
    INFO("b1 " << c[Id(1)] << " b4 " << c[Id(4)] << " b7 " << c[Id(7)]);
    CHECK(c[Id(1)] == 0);
    CHECK(c[Id(4)] + c[Id(7)] == draws);
  }
  SECTION("adaptive: the saturated journal is left out of g1") {
    Counts c = DrawMany(Weighting::kAdaptive, seed, draws, infos);
    INFO("b1 " << c[Id(1)] << " b4 " << c[Id(4)] << " b7 " << c[Id(7)]);
    CHECK(c[Id(1)] == 0);
    CHECK(c[Id(4)] + c[Id(7)] == draws);
  }
}

TEST_CASE("reads ask healthy replicas of the client's region first",
          "[placement]") {
  std::mt19937_64 gen(1);
  PlacementOptions options = RegionOptionsWith(Weighting::kNone);
  options.region.local_region = "g2";
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  const std::vector<BookieId> ensemble = {Id(0), Id(1), Id(2)};  // g0 g1 g2
  CHECK(policy.ReorderReadSequence(ensemble, {0, 1, 2}, {}) ==
        std::vector<int>{2, 0, 1});
  // A failed local replica goes after the healthy remote ones.
  BookieHealthMap health;
  health[Id(2)].last_failed_entry = 5;
  CHECK(policy.ReorderReadSequence(ensemble, {0, 1, 2}, health) ==
        std::vector<int>{0, 1, 2});
  // Without a local region, write-set order.
  std::mt19937_64 gen2(1);
  RackAwarePolicy plain(RegionOptionsWith(Weighting::kNone), gen2);
  plain.OnClusterChanged(MakeRegionBookies(9, 3, 3), {});
  CHECK(plain.ReorderReadSequence(ensemble, {0, 1, 2}, {}) ==
        std::vector<int>{0, 1, 2});
}

TEST_CASE("region mode off leaves the rack-aware draws unchanged",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    PlacementOptions plain;
    plain.weighting = static_cast<Weighting>(seed % 4);
    PlacementOptions with_unused_settings = plain;
    with_unused_settings.region.min_regions_for_durability = 3;
    with_unused_settings.region.local_region = "g1";
    with_unused_settings.region.regions_to_write = {"g1"};
    std::mt19937_64 gen_a(seed), gen_b(seed);
    RackAwarePolicy a(plain, gen_a), b(with_unused_settings, gen_b);
    a.OnClusterChanged(MakeRegionBookies(12, 3, 2), {});
    b.OnClusterChanged(MakeRegionBookies(12, 3, 2), {});
    for (int round = 0; round < 5; ++round) {
      absl::StatusOr<PlacementResult> ra = a.NewEnsemble(4, 3, 2, {});
      absl::StatusOr<PlacementResult> rb = b.NewEnsemble(4, 3, 2, {});
      REQUIRE(ra.ok());
      REQUIRE(rb.ok());
      CHECK(ra->ensemble == rb->ensemble);
    }
  }
}

}  // namespace
}  // namespace bk::placement
