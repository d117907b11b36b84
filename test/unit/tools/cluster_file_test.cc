#include "tools/bkctl/cluster_file.h"

#include <string>

#include "catch2/catch.hpp"
#include "placement/topology.h"

namespace bk::bkctl {
namespace {

std::string ErrorOf(const std::string& json) {
  absl::StatusOr<ClusterFile> c = ParseClusterFile(json);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

TEST_CASE("region and group inputs parse, and bad ones name their key",
          "[tools]") {
  absl::StatusOr<ClusterFile> c = ParseClusterFile(R"({"policy": {
      "ensemblePlacementPolicy": "region-aware",
      "reppMinimumRegionsForDurability": 3,
      "reppEnableDurabilityEnforcementInReplace": false,
      "reppRegionsToWrite": "east; west", "clientRegion": "east"},
    "bookies": [{"id": "b1", "rack": "/east/r1", "groups": ["b", "a", "b"]}]})");
  REQUIRE(c.ok());
  const placement::RegionOptions& r = c->options.region;
  CHECK(r.enabled);
  CHECK(r.min_regions_for_durability == 3);
  CHECK_FALSE(r.enforce_durability_in_replace);
  CHECK(r.regions_to_write == std::vector<std::string>{"east", "west"});
  CHECK(r.local_region == "east");
  CHECK(c->bookies[0].node.groups == std::vector<std::string>{"a", "b"});
  CHECK(ErrorOf(R"({"policy": {"ensemblePlacementPolicy": "zone"},
      "bookies": []})")
            .find("policy.ensemblePlacementPolicy") != std::string::npos);
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1", "groups": "a"}]})")
            .find("bookies[0].groups") != std::string::npos);
  CHECK(ErrorOf(R"({"policy": {"clientRegion": "a/b"}, "bookies": []})")
            .find("region name") != std::string::npos);
}

TEST_CASE("the cluster file of the issue parses field by field", "[tools]") {
  absl::StatusOr<ClusterFile> c = ParseClusterFile(R"({"policy": {
      "weighting": "disk", "minNumRacksPerWriteQuorum": 3,
      "enforceMinNumRacksPerWriteQuorum": true,
      "bookieMaxWeightMultipleForWeightBasedPlacement": 4,
      "loadThreshold": 60, "lowLoadBookieRatio": 0.25},
    "bookies": [{"id": "b1", "rack": "/default-region/r1", "readonly": true,
      "free_disk_space": 100, "total_disk_capacity": 1000,
      "journal_io_util": 56, "ledger_io_util": -1, "cpu_used_rate": 12.5,
      "write_bytes_per_second": 2048, "report_age_ms": 1500}]})");
  REQUIRE(c.ok());
  CHECK(c->options.weighting == placement::Weighting::kDisk);
  CHECK(c->options.min_num_racks_per_write_quorum == 3);
  CHECK(c->options.enforce_min_num_racks_per_write_quorum);
  CHECK(c->options.bookie_max_weight_multiple == 4);
  CHECK(c->options.load_threshold == 60);
  CHECK(c->options.low_load_bookie_ratio == 0.25);
  REQUIRE(c->bookies.size() == 1);
  const ClusterBookie& b = c->bookies[0];
  CHECK(b.node.id == "b1");
  CHECK(b.node.network_location == "/default-region/r1");
  CHECK(b.readonly);
  CHECK(b.info.free_disk_bytes == 100);
  CHECK(b.info.total_disk_bytes == 1000);
  CHECK(b.info.journal_io_util == 56);
  CHECK(b.info.ledger_io_util == -1);
  CHECK(b.info.cpu_used_rate == 12.5);
  CHECK(b.info.write_bytes_per_second == 2048);
  CHECK(b.report_age == absl::Milliseconds(1500));
}

TEST_CASE("missing policy keys default and missing load figures are unknown",
          "[tools]") {
  absl::StatusOr<ClusterFile> c =
      ParseClusterFile(R"({"bookies": [{"id": "b1"}]})");
  REQUIRE(c.ok());
  CHECK(c->options.weighting == placement::Weighting::kNone);
  CHECK(c->options.min_num_racks_per_write_quorum == 2);
  CHECK_FALSE(c->options.enforce_min_num_racks_per_write_quorum);
  CHECK(c->options.bookie_max_weight_multiple == 3);
  CHECK(c->options.load_threshold == 70);
  CHECK(c->options.low_load_bookie_ratio == 0.5);
  const ClusterBookie& b = c->bookies[0];
  CHECK(b.node.network_location == placement::kDefaultRack);
  CHECK_FALSE(b.readonly);
  CHECK(b.info.free_disk_bytes == -1);
  CHECK(b.info.journal_io_util == -1);
  CHECK(b.info.write_bytes_per_second == -1);
  CHECK(b.report_age == absl::ZeroDuration());
}

TEST_CASE("unknown keys are errors naming the key", "[tools]") {
  CHECK(ErrorOf(R"({"bookies": [], "colour": 1})") == "unknown key \"colour\"");
  CHECK(ErrorOf(R"({"policy": {"loadTreshold": 70}, "bookies": []})") ==
        "unknown key \"policy.loadTreshold\"");
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1"}, {"id": "b2", "disk": 1}]})") ==
        "unknown key \"bookies[1].disk\"");
}

TEST_CASE("malformed cluster files are errors, not exceptions", "[tools]") {
  CHECK(ErrorOf("{not json").rfind("cluster file is not valid JSON", 0) == 0);
  CHECK(ErrorOf("[]") == "cluster file: expected a JSON object");
  CHECK(ErrorOf(R"({"policy": {}})") ==
        "cluster file: missing key \"bookies\"");
  CHECK(ErrorOf(R"({"bookies": [{"rack": "/a/b"}]})") ==
        "bookies[0]: missing key \"id\"");
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1"}, {"id": "b1"}]})") ==
        "bookies[1].id: duplicate id \"b1\"");
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1", "rack": "r1"}]})") ==
        "bookies[0].rack: expected /region/rack");
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1", "journal_io_util": "x"}]})") ==
        "bookies[0].journal_io_util: expected a number");
  CHECK(ErrorOf(R"({"bookies": [{"id": "b1", "free_disk_space": 1.5}]})") ==
        "bookies[0].free_disk_space: expected an integer");
  CHECK(ErrorOf(R"({"policy": {"weighting": "fast"}, "bookies": []})") ==
        "policy.weighting: expected none, disk, load or adaptive");
  CHECK(ErrorOf(R"({"policy": {"lowLoadBookieRatio": 1.5}, "bookies": []})") ==
        "placement option lowLoadBookieRatio must be in [0, 1]");
}

TEST_CASE("a missing cluster file is NotFound", "[tools]") {
  absl::StatusOr<ClusterFile> c = ReadClusterFile("/nonexistent/cluster.json");
  CHECK(c.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace bk::bkctl
