// bkbench write against a live local cluster whose ZooKeeper is secured
// with credentials (every bookie with zkEnableSecurity and zkDigestFile):
// with the client config file of --client-conf it writes, without it it
// fails with an error that says what to give. And the echo ceiling, run
// before and after the load, with the share taken of the higher pass. No
// timing is asserted.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/integration/tools/tool_runner.h"
#include "test/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;

TEST_CASE(
    "bkbench write reaches a cluster secured with ZooKeeper credentials "
    "through --client-conf, and says what is missing without it",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  const std::string digest = tmp.Sub("zk-digest");
  std::ofstream(digest) << "bookkeeper:s3cret\n";
  fs::permissions(digest, fs::perms::owner_read | fs::perms::owner_write);
  auto cluster = bk::testing::StartToolCluster(
      tmp.Sub("c"), BK_BOOKIE_BINARY,
      {"zkEnableSecurity=true", "zkDigestFile=" + digest});
  REQUIRE(cluster != nullptr);
  const std::string uri = cluster->metadata_uri();
  const std::string conf = tmp.Sub("client.conf");
  std::ofstream(conf) << "zkEnableSecurity=true\nzkDigestFile=" << digest
                      << "\n";
  const std::string write = absl::StrCat(
      " write --metadata-uri ", uri,
      " --ledgers 1 --rate 200 --duration 1 --echo-seconds 0 --json");

  auto refused = bk::testing::RunTool(BKBENCH_PATH, write, tmp.path());
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(absl::StrContains(refused.err, "--client-conf"));
  CHECK(absl::StrContains(refused.err, "zkEnableSecurity=true"));

  auto allowed = bk::testing::RunTool(
      BKBENCH_PATH, absl::StrCat("--client-conf ", conf, write), tmp.path());
  INFO(allowed.err);
  REQUIRE(allowed.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(allowed.out);
  CHECK(j["errors"].get<int64_t>() == 0);
  CHECK(j["entries"].get<int64_t>() > 0);
  // Where the CPU went: every bookie's process_cpu_seconds_total was
  // scraped at both ends of the run, so the bookies' figure is known (-1
  // would say one did not answer).
  CHECK(j["cpu"]["bookies_answered"].get<int>() == 3);
  CHECK(j["cpu"]["bookies_us_per_entry"].get<double>() >= 0);
  CHECK(j["cpu"]["client_us_per_entry"].get<double>() >= 0);
}

TEST_CASE(
    "bkbench write measures the echo ceiling before and after the load and "
    "gives the share of the higher",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  auto cluster =
      bk::testing::StartToolCluster(tmp.Sub("c"), BK_BOOKIE_BINARY, {});
  REQUIRE(cluster != nullptr);
  auto run = bk::testing::RunTool(
      BKBENCH_PATH,
      absl::StrCat(" write --metadata-uri ", cluster->metadata_uri(),
                   " --ledgers 1 --rate 200 --duration 1 --echo-seconds 1"
                   " --json"),
      tmp.path());
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(run.out);
  const nlohmann::json& c = j["echo_ceiling"];
  const double before = c["before_entries_per_second"].get<double>();
  const double after = c["after_entries_per_second"].get<double>();
  CHECK(before > 0);
  CHECK(after > 0);
  const double higher = std::max(before, after);
  CHECK(c["entries_per_second"].get<double>() == higher);
  CHECK(c["ratio"].get<double>() ==
        Approx(j["entries_per_second"].get<double>() / higher));
}

}  // namespace
