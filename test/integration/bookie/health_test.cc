// /health of a real bookie (bookie_testing, on a fault Env) after a
// failure only a restart clears (a failed journal sync): it answers 503,
// so a liveness probe restarts the bookie.

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
  auto b = StartBookie(TestingOptions(dir, "bk-health-eio",
                                      {{"testingFailSyncNth", "10"},
                                       {"testingFailSyncPath", ".jnl"}}));
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

}  // namespace
}  // namespace bk::it
