// Autorecovery's admin HTTP endpoints (autorecovery/admin_routes.h) on real
// bookie processes that run autorecovery in-process, over a real
// ZooKeeper: who is the auditor, an audit on request, and a decommission
// driven over HTTP (PUT marks the bookie's ledgers, GET shows them moving
// off, DELETE is refused while the bookie is needed and then deletes its
// cookie). Every PUT and DELETE needs the admin bearer token.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <random>

#include "absl/strings/match.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "test/support/bookie_cluster.h"
#include "test/support/http_get.h"
#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::autorecovery {
namespace {

using bk::testing::HttpCall;
using bk::testing::HttpGet;
using bk::testing::HttpReply;
using bk::testing::PollUntil;
using nlohmann::json;

constexpr char kToken[] = "ar-admin-token";
const std::string kApi = "/api/v1/autorecovery/";

uint64_t Seed() { return bk::testing::TestSeed(); }

json Json(const HttpReply& r) {
  INFO("status " << r.status << " body: " << r.body);
  json v = json::parse(r.body, nullptr, false);
  REQUIRE_FALSE(v.is_discarded());
  return v;
}

std::map<std::string, std::string> Bearer() {
  return {{"Authorization", std::string("Bearer ") + kToken}};
}

TEST_CASE(
    "autorecovery's admin endpoints name the auditor, trigger an audit and "
    "drive a decommission, every change needing the admin token",
    "[integration][autorecovery][http]") {
  INFO("seed " << Seed());
  bk::testing::TempDir dir;
  const std::string token_file = dir.Sub("admin.token");
  std::ofstream(token_file) << kToken << "\n";
  ::chmod(token_file.c_str(), 0600);
  const std::string passwords = dir.Sub("passwords");
  std::ofstream(passwords) << "pw\n";
  ::chmod(passwords.c_str(), 0600);

  const std::string uri =
      "zk://" + test::SharedZkServer().hosts() + "/autorecovery-http";
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_BINARY;
  o.metadata_uri = uri;
  o.bookies = 4;
  o.extra_flags = {"--autoRecoveryDaemonEnabled=true",
                   "--lostBookieRecoveryDelay=0",
                   "--autoRecoveryPollIntervalMs=200",
                   "--rwRereplicateBackoffMs=500",
                   "--ledgerPasswordFile=" + passwords,
                   "--httpServerAdminEnabled=true",
                   "--httpServerAdminTokenFile=" + token_file};
  auto c = test::BookieCluster::Start(o);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  auto& cluster = **c;
  auto md = metadata::Open(uri);
  REQUIRE(md.ok());
  client::ClientOptions co;
  co.metadata_service_uri = uri;
  co.seed = Seed();
  auto cl = client::Client::Create(co);
  REQUIRE(cl.ok());

  // Three closed ledgers at E3/WQ2/AQ2.
  std::vector<int64_t> ledgers;
  for (int i = 0; i < 3; ++i) {
    auto w = (*cl)->CreateLedger({.ensemble_size = 3,
                                  .write_quorum = 2,
                                  .ack_quorum = 2,
                                  .password = "pw"});
    REQUIRE(w.ok());
    std::vector<std::future<absl::StatusOr<int64_t>>> acks;
    for (int e = 0; e < 20; ++e) {
      acks.push_back((*w)->Append("entry " + std::to_string(e)));
    }
    for (auto& a : acks) REQUIRE(a.get().ok());
    REQUIRE((*w)->Close().ok());
    ledgers.push_back((*w)->ledger_id());
  }
  // The bookie to decommission: one that ledgers[0] names. The calls go to
  // another bookie's HTTP port (any bookie serves the whole cluster's).
  auto first = (*md)->ReadLedger(ledgers[0]);
  REQUIRE(first.ok());
  const std::string target = first->value.segments(0).bookies(0);
  const int target_index = cluster.IndexOf(target);
  REQUIRE(target_index >= 0);
  const int port = cluster.http_port((target_index + 1) % cluster.size());

  json who;
  REQUIRE(PollUntil(
      [&] {
        auto r = HttpGet(port, kApi + "who_is_auditor");
        if (r.status != 200) return false;
        who = Json(r);
        return true;
      },
      absl::Seconds(30)));
  CHECK_FALSE(who["Auditor"].get<std::string>().empty());

  // BookKeeper's cluster_info, served by any bookie.
  json info = Json(HttpGet(port, "/api/v1/bookie/cluster_info"));
  CHECK(info["writableBookiesCount"] == cluster.size());
  CHECK(info["unavailableBookiesCount"] == 0);
  CHECK(info["auditorElected"] == true);
  CHECK(info["auditorId"] == who["Auditor"]);
  CHECK(info["ledgerReplicationEnabled"] == true);

  CHECK(Json(HttpGet(port, kApi + "list_under_replicated_ledger")).empty());
  CHECK(HttpGet(port, kApi + "list_under_replicated_ledger?nope=1").status ==
        400);

  // Audit on request.
  CHECK(HttpCall(port, "PUT", kApi + "trigger_audit").status == 401);
  auto audit = HttpCall(port, "PUT", kApi + "trigger_audit", Bearer());
  REQUIRE(audit.status == 200);
  CHECK(Json(audit)["requested"] == true);

  // Pausing re-replication over BookKeeper's status endpoint: a PUT needs
  // the token; the pause shows in cluster_info; resuming ends it.
  CHECK(Json(HttpGet(port, kApi + "status"))["enabled"] == true);
  CHECK(HttpCall(port, "PUT", kApi + "status?enabled=false").status == 401);
  auto paused = HttpCall(port, "PUT", kApi + "status?enabled=false", Bearer());
  REQUIRE(paused.status == 200);
  CHECK(Json(paused)["enabled"] == false);
  CHECK(Json(HttpGet(
            port, "/api/v1/bookie/cluster_info"))["ledgerReplicationEnabled"] ==
        false);
  auto resumed = HttpCall(port, "PUT", kApi + "status?enabled=true", Bearer());
  REQUIRE(resumed.status == 200);
  CHECK(Json(resumed)["enabled"] == true);
  CHECK(Json(HttpGet(port, kApi + "status"))["enabled"] == true);

  // Decommission: refused without the token or with a bad body.
  const std::string body = "{\"bookie_src\": [\"" + target + "\"]}";
  CHECK(HttpCall(port, "PUT", kApi + "bookie", {}, body).status == 401);
  CHECK(HttpCall(port, "PUT", kApi + "bookie",
                 {{"Authorization", "Bearer wrong"}}, body)
            .status == 401);
  for (const char* bad :
       {"", "{\"bookie_src\": []}", "{\"bookie_src\": 3}", "{\"x\": \"a\"}"}) {
    auto r = HttpCall(port, "PUT", kApi + "bookie", Bearer(), bad);
    INFO(bad << " -> " << r.body);
    CHECK(r.status == 400);
  }
  CHECK(HttpCall(port, "DELETE", kApi + "bookie?bookie_src=" + target).status ==
        401);

  auto start = HttpCall(port, "PUT", kApi + "bookie", Bearer(), body);
  REQUIRE(start.status == 200);
  CHECK(Json(start)["ledgersMarked"][target].get<int64_t>() >= 1);

  // The workers move every ledger off it.
  json progress;
  CHECK(PollUntil(
      [&] {
        progress = Json(HttpGet(port, kApi + "bookie?bookie_src=" + target));
        return progress["ledgersRemaining"] == 0;
      },
      absl::Seconds(120), absl::Milliseconds(500)));
  INFO(progress.dump());
  CHECK(progress["registered"] == true);
  CHECK(PollUntil(
      [&] {
        return Json(HttpGet(port, kApi + "list_under_replicated_ledger"))
            .empty();
      },
      absl::Seconds(60)));

  // Still registered: the cookie stays.
  auto early =
      HttpCall(port, "DELETE", kApi + "bookie?bookie_src=" + target, Bearer());
  CHECK(early.status == 409);
  CHECK(absl::StrContains(early.body, "registered"));

  REQUIRE(cluster.Kill(target_index).ok());
  HttpReply done;
  CHECK(PollUntil(
      [&] {
        done = HttpCall(port, "DELETE", kApi + "bookie?bookie_src=" + target,
                        Bearer());
        return done.status == 200;
      },
      absl::Seconds(30)));
  INFO(done.body);
  CHECK(Json(done)["decommissioned"] == true);
  CHECK(absl::IsNotFound((*md)->ReadCookie(target).status()));
  // Every ledger is still fully readable.
  for (int64_t id : ledgers) {
    auto r = (*cl)->OpenLedger(id, "pw", /*recover=*/false);
    REQUIRE(r.ok());
  }
}

}  // namespace
}  // namespace bk::autorecovery
