#include <string>

#include "catch2/catch.hpp"
#include "tools/sim/scenario_yaml.h"

namespace bk::sim {
namespace {

const char* const kMinimal = R"(
devices: [{name: ssd, capacity_mib_per_second: 300, sync_ms: 0.5}]
bookie_groups: [{count: 4, device: ssd}]
)";

std::string With(const std::string& extra) { return kMinimal + extra; }

TEST_CASE("a minimal scenario takes the documented defaults", "[sim]") {
  absl::StatusOr<Scenario> s = ParseScenarioYaml(kMinimal);
  REQUIRE(s.ok());
  CHECK(s->BookieCount() == 4);
  CHECK(s->duration_s == 3600);
  CHECK(s->policies.size() == 4);
  CHECK(s->ledgers.ensemble_size == 2);
}

TEST_CASE("an unknown key is rejected, naming the key", "[sim]") {
  absl::StatusOr<Scenario> s = ParseScenarioYaml(With("durration_s: 10\n"));
  REQUIRE(!s.ok());
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(s.status().message()).find("durration_s") !=
        std::string::npos);

  s = ParseScenarioYaml(With("clients: {count: 2, report_intervl_s: 3}\n"));
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("clients.report_intervl_s") !=
        std::string::npos);

  s = ParseScenarioYaml(With("placement: {adaptive: {choises: 2}}\n"));
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("placement.adaptive.choises") !=
        std::string::npos);
}

TEST_CASE("impossible timings are rejected, naming the key", "[sim]") {
  struct Case {
    const char* yaml;
    const char* key;
  };
  for (const Case& c : {
           Case{"tick_ms: 0\n", "tick_ms"},
           Case{"duration_s: -5\n", "duration_s"},
           Case{"duration_s: 100\nwarmup_s: 100\n", "warmup_s"},
           Case{"duration_s: 100\nmetrics_interval_s: 200\n",
                "metrics_interval_s"},
           Case{"clients: {report_interval_s: 0}\n",
                "clients.report_interval_s"},
           Case{"ledgers: {lifetime_s: -1}\n", "ledgers.lifetime_s"},
           Case{"duration_s: 100\ngray_failures: [{bookie: 0, start_s: 100, "
                "duration_s: 5}]\n",
                "gray_failures[0].start_s"},
       }) {
    INFO(c.yaml);
    absl::StatusOr<Scenario> s = ParseScenarioYaml(With(c.yaml));
    REQUIRE(!s.ok());
    CHECK(std::string(s.status().message()).find(c.key) != std::string::npos);
  }
}

TEST_CASE("impossible values are rejected, naming the key", "[sim]") {
  struct Case {
    const char* yaml;
    const char* key;
  };
  for (const Case& c : {
           Case{"ledgers: {ensemble_size: 2, write_quorum: 3}\n",
                "ledgers.write_quorum"},
           Case{"ledgers: {ensemble_size: 9, write_quorum: 2}\n",
                "ledgers.ensemble_size"},
           Case{"traffic: {pareto_shape: 1}\n", "traffic.pareto_shape"},
           Case{"racks: 9\n", "racks"},
           Case{"readonly_bookies: 4\n", "readonly_bookies"},
           Case{"clients: {count: two}\n", "clients.count"},
           Case{"policies: [none, random]\n", "policies[1]"},
           Case{"placement: {loadThreshold: 170}\n", "placement"},
           Case{"regions: 9\n", "regions"},
           Case{"placement: {ensemblePlacementPolicy: zone-aware}\n",
                "placement.ensemblePlacementPolicy"},
           Case{"placement: {ensemblePlacementPolicy: region-aware}\n"
                "ledgers: {ensemble_size: 2, write_quorum: 2, ack_quorum: 1}\n",
                "ledgers.ack_quorum"},
           Case{"clients: {clairvoyant: true, greedy: true}\n",
                "clients.greedy"},
       }) {
    INFO(c.yaml);
    absl::StatusOr<Scenario> s = ParseScenarioYaml(With(c.yaml));
    REQUIRE(!s.ok());
    CHECK(std::string(s.status().message()).find(c.key) != std::string::npos);
  }
  absl::StatusOr<Scenario> s = ParseScenarioYaml(R"(
devices: [{name: ssd, capacity_mib_per_second: 300, sync_ms: 0.5}]
bookie_groups: [{count: 4, device: hdd}]
)");
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("bookie_groups[0].device") !=
        std::string::npos);
}

TEST_CASE("malformed YAML is an error, not an exception", "[sim]") {
  absl::StatusOr<Scenario> s = ParseScenarioYaml("devices: [unclosed\n");
  REQUIRE(!s.ok());
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(!ReadScenarioFile("/nonexistent/scenario.yaml").ok());
}

TEST_CASE("every committed scenario is valid", "[sim]") {
  for (const char* name :
       {"bp65", "small", "tiny_one_bookie", "tiny_identical"}) {
    INFO(name);
    absl::StatusOr<Scenario> s =
        ReadScenarioFile(std::string(BK_SCENARIO_DIR) + "/" + name + ".yaml");
    CHECK(s.ok());
  }
}

}  // namespace
}  // namespace bk::sim
