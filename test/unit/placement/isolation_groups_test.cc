// Isolation groups: BookKeeper's isolated-bookie test behaviours (as Pulsar
// drives them through a ledger's affinity groups), written anew.

#include "placement/isolation_groups.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/rack_aware_policy.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Counts;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// p0..p3 in group "primary", s0..s3 in "secondary", o0..o3 in "other",
// n0..n3 in none; every set over racks k0, k1.
std::vector<BookieNode> GroupedCluster() {
  std::vector<BookieNode> nodes;
  const std::pair<const char*, const char*> sets[] = {
      {"p", "primary"}, {"s", "secondary"}, {"o", "other"}, {"n", ""}};
  for (const auto& [prefix, group] : sets) {
    for (int i = 0; i < 4; ++i) {
      BookieNode node{absl::StrCat(prefix, i), absl::StrCat("/g/k", i % 2)};
      if (*group != '\0') node.groups = {group};
      nodes.push_back(node);
    }
  }
  return nodes;
}

LedgerHints Affinity(const std::string& primary, const std::string& secondary) {
  LedgerHints hints;
  hints.custom_metadata[std::string(kAffinityGroupPrimaryKey)] = primary;
  if (!secondary.empty()) {
    hints.custom_metadata[std::string(kAffinityGroupSecondaryKey)] = secondary;
  }
  return hints;
}

TEST_CASE("group lists parse, trim, and refuse bad names", "[placement]") {
  absl::StatusOr<IsolationGroups> groups =
      IsolationGroupsOf(Affinity(" b, a,,b ", "a,c"));
  REQUIRE(groups.ok());
  CHECK(groups->primary == std::vector<std::string>{"a", "b"});
  CHECK(groups->secondary == std::vector<std::string>{"c"});
  CHECK(IsolationGroupsOf(LedgerHints{})->empty());
  CHECK(IsolationGroupsOf(Affinity("a b", "")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  LedgerHints only_secondary;
  only_secondary.custom_metadata.emplace(kAffinityGroupSecondaryKey, "x");
  CHECK(IsolationGroupsOf(only_secondary).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a ledger with a primary group is placed inside it", "[placement]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.weighting = static_cast<Weighting>(seed % 4);
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(GroupedCluster(), {});
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(4, 2, 2, {}, Affinity("primary", "secondary"));
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    for (const BookieId& id : result->ensemble) CHECK(id[0] == 'p');
  }
}

TEST_CASE("the secondary group is used only when the primary cannot do",
          "[placement]") {
  Counts used;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(PlacementOptions{}, gen);
    policy.OnClusterChanged(GroupedCluster(), {});
    // Five bookies: the primary group has four.
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(5, 2, 2, {}, Affinity("primary", "secondary"));
    REQUIRE(result.ok());
    for (const BookieId& id : result->ensemble) {
      CHECK((id[0] == 'p' || id[0] == 's'));
      ++used[id.substr(0, 1)];
    }
    // Without a secondary group there is no fallback.
    CHECK(IsNotEnoughBookies(
        policy.NewEnsemble(5, 2, 2, {}, Affinity("primary", "")).status()));
  }
  CHECK(used["s"] > 0);
  CHECK(used["o"] == 0);
  CHECK(used["n"] == 0);
}

TEST_CASE("several primary groups pool their bookies", "[placement]") {
  std::mt19937_64 gen(4);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(GroupedCluster(), {});
  absl::StatusOr<PlacementResult> result =
      policy.NewEnsemble(8, 2, 2, {}, Affinity("primary,other", "secondary"));
  REQUIRE(result.ok());
  for (const BookieId& id : result->ensemble) {
    CHECK((id[0] == 'p' || id[0] == 'o'));
  }
}

TEST_CASE("read-only and quarantined bookies of the group are left out",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(PlacementOptions{}, gen);
    std::vector<BookieNode> writable = GroupedCluster();
    std::vector<BookieNode> readonly = {writable[0]};  // p0
    writable.erase(writable.begin());
    policy.OnClusterChanged(writable, readonly);
    policy.AdvanceTime(kNow);
    policy.Quarantine("p1", kNow + absl::Minutes(1));
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(2, 2, 2, {}, Affinity("primary", "secondary"));
    REQUIRE(result.ok());
    std::vector<BookieId> sorted = result->ensemble;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<BookieId>{"p2", "p3"});
    // Three bookies: the quarantined one before the secondary group.
    absl::StatusOr<PlacementResult> three =
        policy.NewEnsemble(3, 2, 2, {}, Affinity("primary", "secondary"));
    REQUIRE(three.ok());
    sorted = three->ensemble;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<BookieId>{"p1", "p2", "p3"});
  }
}

TEST_CASE("ungrouped ledgers use every bookie, grouped ones never ungrouped",
          "[placement]") {
  Counts any;
  std::mt19937_64 gen(9);
  RackAwarePolicy policy(PlacementOptions{}, gen);
  policy.OnClusterChanged(GroupedCluster(), {});
  for (int i = 0; i < 300; ++i) {
    absl::StatusOr<PlacementResult> result = policy.NewEnsemble(3, 2, 2, {});
    REQUIRE(result.ok());
    for (const BookieId& id : result->ensemble) ++any[id.substr(0, 1)];
  }
  for (const char* prefix : {"p", "s", "o", "n"}) CHECK(any[prefix] > 0);
  // A group nobody belongs to gives NotEnoughBookies, not ungrouped bookies.
  CHECK(IsNotEnoughBookies(
      policy.NewEnsemble(2, 2, 2, {}, Affinity("missing", "")).status()));
}

TEST_CASE("replacement stays in the primary group, then the secondary",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(PlacementOptions{}, gen);
    policy.OnClusterChanged(GroupedCluster(), {});
    const LedgerHints hints = Affinity("primary", "secondary");
    absl::StatusOr<ReplacementResult> inside =
        policy.ReplaceBookie({"p0", "p1", "p2"}, 0, 2, 2, {}, hints);
    REQUIRE(inside.ok());
    CHECK(inside->bookie == "p3");
    absl::StatusOr<ReplacementResult> fallback =
        policy.ReplaceBookie({"p0", "p1", "p2"}, 0, 2, 2, {"p3"}, hints);
    REQUIRE(fallback.ok());
    CHECK(fallback->bookie[0] == 's');
  }
}

TEST_CASE("isolation groups and the region rule apply together",
          "[placement]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.region.enabled = true;
    RackAwarePolicy policy(options, gen);
    // Three regions; in each, bookies x* in group "tenant" and y* in none.
    std::vector<BookieNode> nodes;
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i < 2; ++i) {
        nodes.push_back({absl::StrCat("x", r, i),
                         absl::StrCat("/g", r, "/k", i),
                         {"tenant"}});
        nodes.push_back(
            {absl::StrCat("y", r, i), absl::StrCat("/g", r, "/k", i)});
      }
    }
    policy.OnClusterChanged(nodes, {});
    absl::StatusOr<PlacementResult> result =
        policy.NewEnsemble(3, 3, 2, {}, Affinity("tenant", ""));
    REQUIRE(result.ok());
    CHECK(result->adherence == Adherence::kMeetsStrict);
    absl::flat_hash_set<std::string> regions;
    for (const BookieId& id : result->ensemble) {
      CHECK(id[0] == 'x');
      regions.insert(policy.topology().Region(id));
    }
    CHECK(regions.size() == 3);
  }
}

}  // namespace
}  // namespace bk::placement
