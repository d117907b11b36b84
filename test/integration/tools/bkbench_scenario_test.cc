// bkbench scenario end to end: a short tailing + catch-up scenario on a
// local cluster bkbench starts itself (real ZooKeeper, real bookie
// processes), then the report directory and the JSON's consistency. No
// timing is asserted: only that what was written was read, and that the
// report holds every chart.

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "test/support/temp_dir.h"

namespace {

struct Result {
  int exit_code = -1;
  std::string out;
};

Result Run(const std::string& cmd) {
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof(buf), pipe)) > 0) r.out.append(buf, k);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("a short scenario reads every entry written and renders its report",
          "[integration][tools]") {
  const uint64_t seed = std::random_device()() | 1;
  INFO("seed " << seed);
  bk::testing::TempDir tmp;
  const std::string report = tmp.Sub("report");
  const std::string cmd = absl::StrCat(
      BKBENCH_PATH, " scenario --file ", BK_SOURCE_DIR,
      "/test/integration/tools/short_scenario.yaml --local-cluster ",
      tmp.Sub("cluster"), " --report ", report, " --json --quiet --seed ", seed,
      " --echo-seconds 1 --stream-beside-writers --bookie-binary ",
      BK_BOOKIE_BINARY, " 2>", tmp.Sub("stderr"));
  Result r = Run(cmd);
  INFO(cmd << "\n" << r.out);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["seed"].get<uint64_t>() == seed);
  // The run, then the "streams" run of --stream-beside-writers.
  REQUIRE(j["runs"].size() == 2);
  const nlohmann::json& run = j["runs"][0];
  CHECK(run["streams"].empty());
  CHECK(run["write_errors"].get<int64_t>() == 0);
  int64_t per_ledger_sum = 0;
  for (const auto& n : run["entries_per_ledger"]) {
    per_ledger_sum += n.get<int64_t>();
  }
  CHECK(per_ledger_sum == run["entries_written"].get<int64_t>());
  CHECK(per_ledger_sum > 0);
  REQUIRE(run["readers"].size() == 2);
  for (const auto& reader : run["readers"]) {
    INFO(reader.dump());
    const int idx = reader["ledger_index"].get<int>();
    const int64_t written = run["entries_per_ledger"][idx].get<int64_t>();
    CHECK(reader["errors"].get<int64_t>() == 0);
    CHECK(reader["entries_read"].get<int64_t>() == written);
    CHECK(reader["backlog_at_join"].get<int64_t>() >= 0);
    CHECK(reader["backlog_at_join"].get<int64_t>() <= written);
    CHECK(reader["tail_latency_ms"]["count"].get<int64_t>() <= written);
    if (reader["backlog_at_join"].get<int64_t>() > 0) {
      // The backlog was read to its end, and streamed again raw.
      CHECK(reader["backlog_s"].get<double>() >= 0);
      CHECK(reader["stream_ceiling_entries_per_second"].get<double>() > 0);
      CHECK(reader["stream_beside_writers_entries_per_second"].get<double>() >
            0);
    }
  }
  // In the streams run the late reader is a bare stream of the backlog it
  // found at its join time; the tailing reader still reads.
  const nlohmann::json& streams = j["runs"][1];
  CHECK(streams["label"] == "streams");
  CHECK(streams["write_errors"].get<int64_t>() == 0);
  REQUIRE(streams["readers"].size() == 1);
  CHECK(streams["readers"][0]["name"] == "tail");
  CHECK(streams["readers"][0]["errors"].get<int64_t>() == 0);
  REQUIRE(streams["streams"].size() == 1);
  const nlohmann::json& bare = streams["streams"][0];
  INFO(bare.dump());
  CHECK(bare["name"] == "late");
  CHECK(bare["errors"].get<int64_t>() == 0);
  CHECK(bare["backlog_at_join"].get<int64_t>() > 0);
  CHECK(bare["entries_read"] == bare["backlog_at_join"]);
  CHECK(bare["backlog_entries_per_second"].get<double>() > 0);
  CHECK(run["bookies"].size() == 3);
  CHECK(j.contains("echo_ceiling"));
  CHECK(j["echo_ceiling"]["entries_per_second"].get<double>() > 0);

  CHECK(std::filesystem::file_size(report + "/report.md") > 0);
  const nlohmann::json saved =
      nlohmann::json::parse(std::ifstream(report + "/result.json"));
  CHECK(saved["runs"][0]["entries_written"] == run["entries_written"]);
  for (const char* png :
       {"throughput.png", "latency_p50.png", "latency_p99.png",
        "bookie_write_run.png", "bookie_util_run.png", "backlog.png",
        "tail_latency.png"}) {
    INFO(png);
    CHECK(std::filesystem::exists(report + "/" + png));
    CHECK(std::filesystem::file_size(report + "/" + png) > 0);
  }
}

TEST_CASE(
    "a scenario on read-only bookies is refused naming each one and "
    "why",
    "[integration][tools]") {
  bk::testing::TempDir tmp;
  const std::string file = tmp.Sub("read_only.yaml");
  std::ofstream(file) << "name: read-only\nkind: workload\nduration_s: 2\n"
                         "cluster: {bookies: 3, racks: 3, bookie_config: "
                         "[\"forceReadOnlyBookie=true\"]}\n"
                         "ledgers: {count: 1, ensemble: 3, write_quorum: 2, "
                         "ack_quorum: 2}\n"
                         "writers: {entry_size: 64, rate: 100}\n";
  const std::string err = tmp.Sub("stderr");
  const std::string cmd = absl::StrCat(
      BKBENCH_PATH, " scenario --file ", file, " --local-cluster ",
      tmp.Sub("cluster"), " --quiet --echo-seconds 0 --bookie-binary ",
      BK_BOOKIE_BINARY, " 2>", err);
  Result r = Run(cmd);
  std::ifstream in(err);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  INFO(cmd << "\n" << text);
  CHECK(r.exit_code == 1);
  CHECK(text.find("3 registered, 0 writable") != std::string::npos);
  for (int i = 0; i < 3; ++i) {
    CHECK(text.find(absl::StrCat("bookie-", i,
                                 " is read-only: forceReadOnlyBookie is "
                                 "set")) != std::string::npos);
  }
  CHECK(text.find("not enough bookies") == std::string::npos);
}
