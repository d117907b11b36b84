#include "tools/sim/report.h"

#include <filesystem>
#include <string>

#include "catch2/catch.hpp"
#include "test/support/temp_dir.h"
#include "tools/sim/scenario_yaml.h"
#include "tools/sim/simulator.h"

namespace bk::sim {
namespace {

TEST_CASE("a short run writes a report with its charts", "[sim]") {
  if (FindProgram("gnuplot").empty()) {
    WARN("gnuplot not installed (package gnuplot-nox): PNG check skipped");
    return;
  }
  const uint64_t seed = 9;
  INFO("seed " << seed);
  absl::StatusOr<Scenario> s =
      ReadScenarioFile(std::string(BK_SCENARIO_DIR) + "/small.yaml");
  REQUIRE(s.ok());
  const SimulationResult r = Simulate(*s, seed);
  bk::testing::TempDir dir;
  const std::string out = dir.Sub("report");
  REQUIRE(WriteReport(r, out).ok());
  CHECK(std::filesystem::file_size(out + "/report.md") > 0);
  for (const char* png :
       {"throughput_stddev", "throughput_range", "throughput_top10",
        "latency_p50", "latency_p99", "latency_p999", "herd"}) {
    INFO(png);
    const std::string path = out + "/" + png + ".png";
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 1000);
  }
}

TEST_CASE("a missing gnuplot is a clear error", "[sim]") {
  absl::StatusOr<Scenario> s =
      ReadScenarioFile(std::string(BK_SCENARIO_DIR) + "/tiny_one_bookie.yaml");
  REQUIRE(s.ok());
  const SimulationResult r = Simulate(*s, 1);
  bk::testing::TempDir dir;
  absl::Status st = WriteReport(r, dir.Sub("report"), "no-such-gnuplot-xyz");
  CHECK(st.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(st.message()).find("gnuplot") != std::string::npos);
}

}  // namespace
}  // namespace bk::sim
