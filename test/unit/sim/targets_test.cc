#include "tools/sim/targets.h"

#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "tools/sim/scenario_yaml.h"

namespace bk::sim {
namespace {

Scenario Load(const std::string& name) {
  absl::StatusOr<Scenario> s =
      ReadScenarioFile(std::string(BK_SCENARIO_DIR) + "/" + name + ".yaml");
  REQUIRE(s.ok());
  return *s;
}

TEST_CASE("targets run every variant for every seed and print every table",
          "[sim]") {
  TargetsOptions options;
  options.base = Load("small");
  options.base.duration_s = 240;
  options.base.warmup_s = 60;
  options.base.gray_failures = {{3, 100, 60, 10}};
  options.partitioned = options.base;
  options.partitioned->traffic.partition_mib_per_second = 5;
  options.seeds = {3, 4};
  INFO("seeds 3, 4");
  absl::StatusOr<TargetsResult> r = MeasureTargets(options);
  REQUIRE(r.ok());
  using placement::Weighting;
  for (uint64_t seed : options.seeds) {
    INFO("seed " << seed);
    CHECK(FindRun(*r, seed, "base", Weighting::kNone) != nullptr);
    CHECK(FindRun(*r, seed, "base", Weighting::kLoad) != nullptr);
    CHECK(FindRun(*r, seed, "lag", Weighting::kLoad) != nullptr);
    for (const char* v :
         {"base", "lag", "fresh", "fresh_unshared", "blind", "no_gray",
          "perfect", "clairvoyant", "greedy", "herd_60s_20c", "herd_30s_50c",
          "herd_60s_50c", "partitioned"}) {
      INFO(v);
      CHECK(FindRun(*r, seed, v, Weighting::kAdaptive) != nullptr);
    }
    // The same seed and variant give the same run whatever the threads.
    const PolicyRun* base = FindRun(*r, seed, "base", Weighting::kAdaptive);
    const PolicyRun again =
        SimulatePolicy(options.base, Weighting::kAdaptive, seed);
    CHECK(base->summary.throughput_stddev == again.summary.throughput_stddev);
  }
  const std::string md = TargetsToMarkdown(options, *r);
  for (const char* heading :
       {"### Spread", "### Tail", "### Herding", "### BP-65's direction",
        "### bp65-partitioned", "gap closed >= 50 %", "met on "}) {
    INFO(heading);
    CHECK(md.find(heading) != std::string::npos);
  }
  // Each target line says whether its requirement held, from its count.
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(md, '\n')) {
    if (!absl::StrContains(line, "needs every seed")) continue;
    INFO(line);
    ++lines;
    const bool all = absl::StrContains(line, "met on 2 of 2 seeds");
    CHECK(absl::StrContains(line, all ? "(needs every seed: held)"
                                      : "(needs every seed: NOT held)"));
  }
  CHECK(lines == 8);
  const nlohmann::ordered_json j = TargetsToJson(options, *r);
  CHECK(j["runs"].size() == r->runs.size());
}

TEST_CASE(
    "targets refuse bad options and name the variant a scenario "
    "fails in",
    "[sim]") {
  TargetsOptions options;
  options.base = Load("small");
  options.seeds = {1};
  options.threads = 0;
  CHECK(MeasureTargets(options).status().code() ==
        absl::StatusCode::kInvalidArgument);
  options.threads = 1;
  options.seeds.clear();
  CHECK_FALSE(MeasureTargets(options).ok());
  options.seeds = {1};
  options.partitioned = options.base;
  options.partitioned->traffic.partition_mib_per_second =
      2 * options.base.traffic.max_mib_per_second;
  absl::StatusOr<TargetsResult> r = MeasureTargets(options);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("variant partitioned") !=
        std::string::npos);
}

}  // namespace
}  // namespace bk::sim
