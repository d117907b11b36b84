// /health and /ready of a real bookie (bookie_testing, on a fault Env)
// after failures only a restart clears: a failed journal sync and a failed
// journal checkpoint. /health then answers 503, so a liveness probe
// restarts the bookie; a failed checkpoint is also counted and named in
// /ready. And a full disk with readOnlyModeEnabled=false stops the bookie,
// as BookKeeper does, instead of turning it read-only.

#include <signal.h>

#include "absl/strings/match.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;

BookieProcessOptions TestingOptions(const TempDir& dir, const std::string& id,
                                    std::map<std::string, std::string> flags) {
  BookieProcessOptions o = BookieOptions(dir, id, FreshZkUri(id), flags);
  o.binary = TestingBookieBinary();
  return o;
}

TEST_CASE(
    "after a journal sync fails, /health answers 503 until a restart "
    "without the fault",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(TestingOptions(
      dir, "bk-health-eio",
      {{"testingFailSyncNth", "10"}, {"testingFailSyncPath", ".jnl"}}));
  CHECK(HttpGet(b->http_port(), "/health").status == 200);
  auto stub = Connect(b->grpc_target());
  bool failed = false;
  for (int64_t e = 0; e < 200 && !failed; ++e) {
    failed = AddOne(stub.get(), MakeAdd(60, e)) != proto::BK_EOK;
  }
  REQUIRE(failed);
  auto h = HttpGet(b->http_port(), "/health");
  INFO("/health: " << h.status << " " << h.body);
  CHECK(h.status == 503);
  CHECK(absl::StrContains(h.body, "journal"));

  b->Kill();
  BK_REQUIRE_OK(b->Restart({{"testingFailSyncNth", "0"}}));
  CHECK(HttpGet(b->http_port(), "/health").status == 200);
}

TEST_CASE(
    "a failed journal checkpoint is sticky, counted, and shown by /ready "
    "and /health",
    "[integration][bookie]") {
  TempDir dir;
  // The first lastMark write (at start) succeeds, the second fails.
  auto b = StartBookie(TestingOptions(dir, "bk-checkpoint-eio",
                                      {{"testingFailSyncNth", "2"},
                                       {"testingFailSyncPath", "lastMark"},
                                       {"flushInterval", "100"}}));
  auto stub = Connect(b->grpc_target());
  for (int64_t e = 0; e < 5; ++e)
    REQUIRE(AddOne(stub.get(), MakeAdd(61, e)) == proto::BK_EOK);
  bk::testing::HttpReply ready;
  const bool shown = PollUntil(
      [&] {
        ready = HttpGet(b->http_port(), "/ready");
        return ready.status == 503 &&
               absl::StrContains(ready.body, "checkpoint");
      },
      absl::Seconds(15));
  INFO("/ready: " << ready.status << " " << ready.body);
  CHECK(shown);
  CHECK(MetricValue(b->http_port(),
                    "bookie_journal_checkpoint_failures_total") >= 1);
  CHECK(HttpGet(b->http_port(), "/health").status == 503);
  // Data is not at risk: adds still go through the journal and read back.
  CHECK(AddOne(stub.get(), MakeAdd(61, 5)) == proto::BK_EOK);
  for (int64_t e = 0; e < 6; ++e) CHECK(ReadsBackIntact(stub.get(), 61, e));

  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  BK_REQUIRE_OK(b->Restart({{"testingFailSyncNth", "0"}}));
  CHECK(HttpGet(b->http_port(), "/ready").status == 200);
  stub = Connect(b->grpc_target());
  for (int64_t e = 0; e < 6; ++e) CHECK(ReadsBackIntact(stub.get(), 61, e));
}

// Thresholds far below this machine's disk use: the disk counts as full.
std::map<std::string, std::string> FullDisk(bool read_only_mode) {
  return {{"diskUsageThreshold", "0.02"},
          {"diskUsageWarnThreshold", "0.02"},
          {"diskUsageLwmThreshold", "0.01"},
          {"readOnlyModeEnabled", read_only_mode ? "true" : "false"}};
}

TEST_CASE(
    "a full disk stops the bookie with readOnlyModeEnabled=false and turns "
    "it read-only with true",
    "[integration][bookie]") {
  TempDir dir;
  SECTION("false: the bookie exits with an error that says why") {
    auto launched = BookieProcess::Launch(BookieOptions(
        dir, "bk-full-stop", FreshZkUri("full-stop"), FullDisk(false)));
    REQUIRE(launched.ok());
    auto exit = (*launched)->WaitExit(absl::Seconds(30));
    REQUIRE(exit.ok());
    INFO((*launched)->Log());
    CHECK(exit->signal == 0);
    CHECK(exit->exit_code != 0);
    CHECK(absl::StrContains((*launched)->Log(), "readOnlyModeEnabled=false"));
  }
  SECTION("true: the bookie serves, read-only") {
    auto b = StartBookie(BookieOptions(dir, "bk-full-ro", FreshZkUri("full-ro"),
                                       FullDisk(true)));
    auto stub = Connect(b->grpc_target());
    CHECK(AddOne(stub.get(), MakeAdd(62, 0)) == proto::BK_EREADONLY);
    auto ready = HttpGet(b->http_port(), "/ready");
    CHECK(ready.status == 200);
    CHECK(absl::StrContains(ready.body, "read-only"));
  }
}

TEST_CASE(
    "with one of two ledger directories full the bookie stays writable, "
    "with both full it turns read-only and still serves reads",
    "[integration][bookie]") {
  TempDir dir;
  const std::string full = dir.path() + "/ledgers-full";
  const std::string free = dir.path() + "/ledgers-free";
  auto b =
      StartBookie(TestingOptions(dir, "bk-one-dir-full",
                                 {{"ledgerDirectories", full + "," + free},
                                  {"testingFullDirPath", "ledgers-full"}}));
  auto stub = Connect(b->grpc_target());
  // Ledgers of both homes (even ids: the full directory's).
  for (uint64_t l = 70; l < 74; ++l) {
    for (int64_t e = 0; e < 5; ++e) {
      REQUIRE(AddOne(stub.get(), MakeAdd(l, e)) == proto::BK_EOK);
    }
  }
  auto ready = HttpGet(b->http_port(), "/ready");
  CHECK(ready.status == 200);
  CHECK_FALSE(absl::StrContains(ready.body, "read-only"));
  CHECK(absl::StrContains(b->Log(), "new ledgers go to the others"));

  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  BK_REQUIRE_OK(b->Restart({{"testingFullDirPath", "ledgers-"}}));
  stub = Connect(b->grpc_target());
  CHECK(AddOne(stub.get(), MakeAdd(74, 0)) == proto::BK_EREADONLY);
  for (uint64_t l = 70; l < 74; ++l) {
    for (int64_t e = 0; e < 5; ++e) CHECK(ReadsBackIntact(stub.get(), l, e));
  }
}

}  // namespace
}  // namespace bk::it
