// Runbook procedures (deploy/README.md) on a live cluster of bookie
// processes over three racks under a steady write load at E3/WQ2/AQ2:
//  - rolling restart: each of four bookies in turn is stopped with SIGTERM
//    (it drains) and started again once the previous one is back; writers
//    replace the stopping bookie, so no add fails and the load never
//    stops, and every acknowledged entry reads back afterwards;
//  - adding a bookie: a fourth bookie joins a running three; it registers
//    writable and new ledgers of the running writers use it.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "test/integration/tools/tool_runner.h"
#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"
#include "tools/bkctl/workload.h"

namespace {

using bk::testing::ToolResult;

ToolResult Bkctl(const std::string& args, const std::string& scratch) {
  return bk::testing::RunTool(BKCTL_PATH, args, scratch);
}

bk::bkctl::WorkloadOptions Load(const std::string& uri) {
  bk::bkctl::WorkloadOptions o;
  o.metadata_uri = uri;
  o.ledgers = 4;
  o.ensemble_size = 3;
  o.write_quorum = 2;
  o.ack_quorum = 2;
  o.rate = 400;
  o.entry_size = 256;
  o.roll_every = absl::Seconds(4);
  return o;
}

// Writable bookies as `bkctl cluster info` counts them; -1 on failure.
int Writable(const std::string& uri, const std::string& scratch) {
  ToolResult info = Bkctl("cluster info --json --metadata-uri " + uri, scratch);
  if (info.exit_code != 0) return -1;
  return nlohmann::json::parse(info.out)["bookies"]["writable"].get<int>();
}

}  // namespace

TEST_CASE(
    "a rolling restart, one bookie at a time, fails no add and loses no "
    "entry",
    "[integration][tools][runbook]") {
  bk::testing::TempDir tmp;
  auto cluster = bk::testing::StartToolCluster(tmp.path(), BK_BOOKIE_BINARY, {},
                                               /*bookies=*/4);
  REQUIRE(cluster != nullptr);
  const std::string uri = cluster->metadata_uri();
  auto load = bk::bkctl::Workload::Start(Load(uri));
  REQUIRE(load.ok());
  int64_t acked = 0, failed = 0;
  std::string last_error;
  auto take = [&] {
    bk::bkctl::WorkloadSecond s = (*load)->TakeSecond();
    acked += s.acked;
    failed += s.failed;
    if (!s.last_error.empty()) last_error = s.last_error;
    return s.acked;
  };
  // The load runs before the first restart.
  REQUIRE(bk::testing::PollUntil([&] { return take(), acked >= 400; },
                                 absl::Seconds(30)));
  for (int i = 0; i < 4; ++i) {
    INFO("bookie " << i);
    CHECK(cluster->StopBookie(i) == 0);  // drained and exited cleanly
    const int64_t before = acked;
    // Writers go on while it is down.
    CHECK(bk::testing::PollUntil([&] { return take(), acked > before + 200; },
                                 absl::Seconds(30)));
    REQUIRE(cluster->RestartBookie(i).ok());
    // The procedure's check before the next bookie: all four writable.
    CHECK(bk::testing::PollUntil(
        [&] { return take(), Writable(uri, tmp.path()) == 4; },
        absl::Seconds(30)));
  }
  (*load)->Stop();
  take();
  INFO("acked " << acked << " failed " << failed << " " << last_error);
  CHECK(failed == 0);
  CHECK(acked > 1000);
  // Every ledger the load wrote (closed by the workload's Stop) reads back
  // whole: `bkctl ledger read` of each, one line per entry.
  ToolResult ledgers =
      Bkctl("ledger list --json --metadata-uri " + uri, tmp.path());
  REQUIRE(ledgers.exit_code == 0);
  int64_t read_total = 0;
  for (const auto& id : nlohmann::json::parse(ledgers.out)) {
    ToolResult r =
        Bkctl(absl::StrCat("ledger read --payload none --ledger ",
                           id.get<int64_t>(), " --metadata-uri ", uri),
              tmp.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    read_total += static_cast<int64_t>(bk::testing::CountLines(r.out));
  }
  CHECK(read_total == acked);
  cluster->Stop();
}

TEST_CASE(
    "an added bookie registers writable and new ledgers of running writers "
    "use it",
    "[integration][tools][runbook]") {
  bk::testing::TempDir tmp;
  auto cluster = bk::testing::StartToolCluster(
      tmp.path(), BK_BOOKIE_BINARY, {}, /*bookies=*/4, /*started_bookies=*/3);
  REQUIRE(cluster != nullptr);
  const std::string uri = cluster->metadata_uri();
  CHECK(Writable(uri, tmp.path()) == 3);
  auto load = bk::bkctl::Workload::Start(Load(uri));
  REQUIRE(load.ok());
  const std::string added = cluster->bookies()[3].id;
  int64_t failed = 0;
  std::map<std::string, int> spread;
  auto take = [&] {
    bk::bkctl::WorkloadSecond s = (*load)->TakeSecond();
    failed += s.failed;
    spread = s.spread;
  };
  REQUIRE(bk::testing::PollUntil([&] { return take(), spread.size() == 3; },
                                 absl::Seconds(30)));
  CHECK(spread.count(added) == 0);
  REQUIRE(cluster->RestartBookie(3).ok());  // the new bookie's first start
  CHECK(Writable(uri, tmp.path()) == 4);
  // Ledgers roll every few seconds; the new ensembles take the new bookie
  // (the quietest, for load-weighted placement).
  CHECK(bk::testing::PollUntil(
      [&] { return take(), spread.count(added) > 0 && spread[added] > 0; },
      absl::Seconds(60)));
  (*load)->Stop();
  take();
  CHECK(failed == 0);
  cluster->Stop();
}
