// The admin API's ledger endpoints on a real bookie process and a real
// ZooKeeper: listing (with metadata, by page), one ledger's metadata, and a
// delete that needs the admin token; bad parameters are 400 and change
// nothing, an unknown ledger is 404.

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/ledger_metadata.h"

namespace bk::it {
namespace {

using bk::testing::HttpCall;
using bk::testing::HttpGet;
using nlohmann::json;

constexpr char kToken[] = "ledger-token-0123456789";

TEST_CASE(
    "the ledger endpoints list ledgers by page, show one ledger's metadata "
    "and delete one with the admin token, and bad parameters change nothing",
    "[integration][bookie][http]") {
  TempDir dir;
  const std::string uri = FreshZkUri("admin-ledgers");
  auto md = OpenMetadata(uri);
  const std::string token_file = dir.Sub("admin.token");
  std::ofstream(token_file) << kToken << "\n";
  ::chmod(token_file.c_str(), 0600);
  auto b =
      StartBookie(BookieOptions(dir, "bk-ledgers", uri,
                                {{"httpServerAdminEnabled", "true"},
                                 {"httpServerAdminTokenFile", token_file}}));
  const int port = b->http_port();
  // 150 ledgers: two pages of BookKeeper's 100.
  for (int64_t id = 0; id < 150; ++id) {
    REQUIRE(
        md->CreateLedger(id, testing::TestLedgerMetadata(
                                 {.segments = {{"bk-ledgers", "bk-a", "bk-b"}},
                                  .state = proto::CLOSED,
                                  .last_entry_id = id}))
            .ok());
  }

  json all = BodyJson(HttpGet(port, "/api/v1/ledger/list"));
  CHECK(all.size() == 150);
  CHECK(all["0"].is_null());
  json page2 = BodyJson(HttpGet(port, "/api/v1/ledger/list?page=2"));
  CHECK(page2.size() == 50);
  CHECK(page2.contains("100"));
  CHECK_FALSE(page2.contains("99"));
  CHECK(BodyJson(HttpGet(port, "/api/v1/ledger/list?page=3")).empty());
  json with =
      BodyJson(HttpGet(port, "/api/v1/ledger/list?print_metadata=true&page=1"));
  CHECK(with.size() == 100);
  CHECK(with["42"]["last_entry_id"] == 42);
  CHECK(with["42"]["state"] == "CLOSED");

  json one = BodyJson(HttpGet(port, "/api/v1/ledger/metadata?ledger_id=7"));
  CHECK(one["7"]["ledger_id"] == 7);
  CHECK(one["7"]["segments"][0]["bookies"] ==
        json::array({"bk-ledgers", "bk-a", "bk-b"}));
  CHECK(HttpGet(port, "/api/v1/ledger/metadata?ledger_id=999").status == 404);

  for (const char* bad : {"", "ledger_id=", "ledger_id=-1", "ledger_id=x",
                          "id=7", "ledger_id=7&x=1"}) {
    INFO(bad);
    CHECK(HttpGet(port, std::string("/api/v1/ledger/metadata?") + bad).status ==
          400);
    CHECK(HttpCall(port, "DELETE", std::string("/api/v1/ledger/delete?") + bad,
                   Bearer(kToken))
              .status == 400);
  }
  for (const char* bad : {"page=0", "page=x", "print_metadata=maybe", "x=1"}) {
    INFO(bad);
    CHECK(HttpGet(port, std::string("/api/v1/ledger/list?") + bad).status ==
          400);
  }

  const std::string del = "/api/v1/ledger/delete?ledger_id=7";
  CHECK(HttpCall(port, "DELETE", del).status == 401);
  CHECK(md->ReadLedger(7).ok());
  auto deleted = HttpCall(port, "DELETE", del, Bearer(kToken));
  REQUIRE(deleted.status == 200);
  CHECK(BodyJson(deleted)["deleted"] == 7);
  CHECK(absl::IsNotFound(md->ReadLedger(7).status()));
  CHECK(HttpCall(port, "DELETE", del, Bearer(kToken)).status == 404);
  CHECK(BodyJson(HttpGet(port, "/api/v1/ledger/list")).size() == 149);
}

}  // namespace
}  // namespace bk::it
