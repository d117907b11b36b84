// Autorecovery's admin HTTP endpoints as plain routes, against the
// in-process metadata store: the decommission's three steps, the listing
// filters, and bad input answered 400 with nothing changed.

#include "autorecovery/admin_routes.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "autorecovery/autorecovery.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"
#include "metadata/metadata_store.h"
#include "test/support/ledger_metadata.h"

namespace bk::autorecovery {
namespace {

using nlohmann::json;

proto::LedgerMetadata Md(std::vector<std::string> bookies) {
  return testing::TestLedgerMetadata({.segments = {std::move(bookies)},
                                      .state = proto::CLOSED,
                                      .last_entry_id = 9});
}

struct Fixture {
  explicit Fixture(const std::string& name) {
    auto s = metadata::Open("mem://" + name);
    REQUIRE(s.ok());
    store = std::move(*s);
    REQUIRE(store->CreateLedger(1, Md({"bk0", "bk1", "bk2"})).ok());
    REQUIRE(store->CreateLedger(2, Md({"bk1", "bk2", "bk3"})).ok());
    REQUIRE(store->CreateLedger(3, Md({"bk0", "bk2", "bk3"})).ok());
    for (auto& r : AutoRecoveryAdminRoutes(
             [this]() -> absl::StatusOr<metadata::MetadataStore*> {
               return store.get();
             })) {
      routes[r.method + " " + r.path] = r.handler;
    }
  }
  AdminReply Call(const std::string& route, std::string query = "",
                  std::string body = "") {
    auto it = routes.find(route);
    REQUIRE(it != routes.end());
    return it->second(AdminCall{std::move(query), std::move(body)});
  }
  std::unique_ptr<metadata::MetadataStore> store;
  std::map<std::string, std::function<AdminReply(const AdminCall&)>> routes;
};

const std::string kApi = "/api/v1/autorecovery/";

TEST_CASE(
    "a decommission over the routes marks the bookie's ledgers, reports what "
    "is left and deletes the cookie only once nothing names the bookie",
    "[autorecovery][http]") {
  Fixture f("admin-routes-decommission");
  auto start =
      f.Call("PUT " + kApi + "bookie", "", "{\"bookie_src\": [\"bk0\"]}");
  REQUIRE(start.status == 200);
  CHECK(json::parse(start.json)["ledgersMarked"]["bk0"] == 2);

  auto listed =
      json::parse(f.Call("GET " + kApi + "list_under_replicated_ledger").json);
  CHECK(listed == json::array({1, 3}));
  auto printed =
      json::parse(f.Call("GET " + kApi + "list_under_replicated_ledger",
                         "printmissingreplica=true")
                      .json);
  CHECK(printed["1"] == json::array({"bk0"}));
  CHECK(json::parse(f.Call("GET " + kApi + "list_under_replicated_ledger",
                           "excludingmissingreplica=bk0")
                        .json)
            .empty());

  auto progress =
      json::parse(f.Call("GET " + kApi + "bookie", "bookie_src=bk0").json);
  CHECK(progress["ledgersRemaining"] == 2);
  CHECK(progress["registered"] == false);

  proto::Cookie cookie;
  cookie.set_bookie_id("bk0");
  REQUIRE(f.store->WriteCookie("bk0", cookie, metadata::kNotExists).ok());
  auto early = f.Call("DELETE " + kApi + "bookie", "bookie_src=bk0");
  CHECK(early.status == 409);
  CHECK(absl::StrContains(early.json, "2 ledgers still name bk0"));
  CHECK(f.store->ReadCookie("bk0").ok());

  // The workers' part, by hand: bk0 replaced by bk3 / bk1.
  for (auto [id, replacement] :
       std::vector<std::pair<int64_t, std::string>>{{1, "bk3"}, {3, "bk1"}}) {
    auto md = f.store->ReadLedger(id);
    REQUIRE(md.ok());
    for (auto& b : *md->value.mutable_segments(0)->mutable_bookies()) {
      if (b == "bk0") b = replacement;
    }
    REQUIRE(f.store->CompareAndSetLedger(id, md->value, md->version).ok());
  }
  auto done = f.Call("DELETE " + kApi + "bookie", "bookie_src=bk0");
  INFO(done.json);
  REQUIRE(done.status == 200);
  CHECK(json::parse(done.json)["cookieDeleted"] == true);
  CHECK(absl::IsNotFound(f.store->ReadCookie("bk0").status()));
}

TEST_CASE("bad input to the autorecovery routes is 400 and changes nothing",
          "[autorecovery][http]") {
  Fixture f("admin-routes-bad");
  for (const char* body :
       {"", "nope", "[]", "{}", "{\"bookie_src\": []}", "{\"bookie_src\": 1}",
        "{\"bookie_src\": [1]}", "{\"bookie_src\": [\"\"]}",
        "{\"bookie_src\": \"bk0\", \"x\": 1}"}) {
    INFO(body);
    auto r = f.Call("PUT " + kApi + "bookie", "", body);
    CHECK(r.status == 400);
    CHECK(json::parse(r.json).contains("error"));
  }
  for (const char* query :
       {"", "bookie_src=", "x=bk0", "bookie_src=%zz", "bookie_src=bk0&x=1"}) {
    INFO(query);
    CHECK(f.Call("GET " + kApi + "bookie", query).status == 400);
    CHECK(f.Call("DELETE " + kApi + "bookie", query).status == 400);
  }
  CHECK(
      f.Call("GET " + kApi + "list_under_replicated_ledger", "foo=1").status ==
      400);
  UnderreplicationManager marks(f.store.get());
  CHECK(marks.List()->empty());
  // No auditor in this store.
  CHECK(f.Call("GET " + kApi + "who_is_auditor").status == 404);
}

TEST_CASE("the autorecovery routes answer 503 while the store cannot open",
          "[autorecovery][http]") {
  for (auto& r : AutoRecoveryAdminRoutes(
           []() -> absl::StatusOr<metadata::MetadataStore*> {
             return absl::UnavailableError("zk down");
           })) {
    INFO(r.method << " " << r.path);
    AdminReply reply = r.handler(AdminCall{"bookie_src=bk0", "{}"});
    CHECK(reply.status == 503);
    CHECK(absl::StrContains(reply.json, "zk down"));
  }
}

TEST_CASE(
    "cluster_info counts bookies by state, with BookKeeper's field names, and "
    "says whether re-replication is enabled",
    "[autorecovery][http]") {
  Fixture f("admin-routes-cluster-info");
  // Three known bookies (cookies): bk0 writable, bk1 read-only, bk2 down.
  for (const char* id : {"bk0", "bk1", "bk2"}) {
    proto::Cookie c;
    c.set_bookie_id(id);
    REQUIRE(f.store->WriteCookie(id, c, metadata::kNotExists).ok());
  }
  for (const char* id : {"bk0", "bk1"}) {
    proto::BookieServiceInfo info;
    info.set_bookie_id(id);
    info.set_grpc_endpoint("127.0.0.1:1");
    info.set_read_only(std::string(id) == "bk1");
    REQUIRE(f.store->RegisterBookie(info).ok());
  }
  const std::string route = "GET /api/v1/bookie/cluster_info";
  auto healthy = f.Call(route);
  REQUIRE(healthy.status == 200);
  json v = json::parse(healthy.json);
  CHECK(v["totalBookiesCount"] == 3);
  CHECK(v["writableBookiesCount"] == 1);
  CHECK(v["readonlyBookiesCount"] == 1);
  CHECK(v["unavailableBookiesCount"] == 1);
  CHECK(v["clusterUnderReplicated"] == false);
  CHECK(v["ledgerReplicationEnabled"] == true);
  CHECK(v["auditorElected"] == false);
  CHECK(v["auditorId"] == "");

  UnderreplicationManager marks(f.store.get());
  REQUIRE(marks.Mark(1, {"bk2"}, absl::Now()).ok());
  REQUIRE(marks.SetReplicationEnabled(false, absl::Now()).ok());
  v = json::parse(f.Call(route).json);
  CHECK(v["clusterUnderReplicated"] == true);
  CHECK(v["ledgerReplicationEnabled"] == false);
}

TEST_CASE(
    "autorecovery/status pauses and resumes re-replication as BookKeeper's "
    "endpoint does, resuming requests an audit, and bad input changes nothing",
    "[autorecovery][http]") {
  Fixture f("admin-routes-status");
  UnderreplicationManager marks(f.store.get());
  auto get = f.Call("GET " + kApi + "status");
  REQUIRE(get.status == 200);
  CHECK(json::parse(get.json) == json{{"enabled", true}});

  auto pause = f.Call("PUT " + kApi + "status", "enabled=false");
  INFO(pause.json);
  REQUIRE(pause.status == 200);
  json v = json::parse(pause.json);
  CHECK(v["enabled"] == false);
  CHECK(v.contains("disabledSince"));
  CHECK(*marks.ReplicationEnabled() == false);
  CHECK(json::parse(f.Call("GET " + kApi + "status").json)["enabled"] == false);
  // Pausing again keeps the first pause's time.
  CHECK(json::parse(f.Call("PUT " + kApi + "status", "enabled=false").json) ==
        v);

  for (const char* query : {"", "enabled=", "enabled=no", "enabled=TRUE",
                            "x=true", "enabled=true&x=1", "enabled=%zz"}) {
    INFO(query);
    auto r = f.Call("PUT " + kApi + "status", query);
    CHECK(r.status == 400);
    CHECK(json::parse(r.json).contains("error"));
    CHECK(*marks.ReplicationEnabled() == false);
  }
  CHECK(absl::IsNotFound(f.store->ReadNode(kAuditRequestNode).status()));

  auto resume = f.Call("PUT " + kApi + "status", "enabled=true");
  REQUIRE(resume.status == 200);
  CHECK(json::parse(resume.json) == json{{"enabled", true}});
  CHECK(*marks.ReplicationEnabled() == true);
  CHECK(f.store->ReadNode(kAuditRequestNode).ok());
}

TEST_CASE(
    "lost_bookie_recovery_delay is read, set cluster-wide with BookKeeper's "
    "body, and cleared, and a bad body is 400 with nothing changed",
    "[autorecovery][http]") {
  Fixture f("admin-routes-delay");
  const std::string route = kApi + "lost_bookie_recovery_delay";
  auto get = f.Call("GET " + route);
  REQUIRE(get.status == 200);
  CHECK(json::parse(get.json) == json{{"set", false}});

  auto set = f.Call("PUT " + route, "", "{\"delay_seconds\": 300}");
  INFO(set.json);
  REQUIRE(set.status == 200);
  CHECK(json::parse(set.json) == json{{"set", true}, {"delay_seconds", 300}});
  CHECK(**ReadLostBookieRecoveryDelay(f.store.get()) == absl::Seconds(300));
  CHECK(f.store->ReadNode(kAuditRequestNode).ok());  // applied at once

  for (const char* body :
       {"", "300", "{}", "{\"delay_seconds\": -1}", "{\"delay_seconds\": 1.5}",
        "{\"delay_seconds\": \"60\"}", "{\"delay_seconds\": 99999999999}",
        "{\"delay_seconds\": 60, \"x\": 1}"}) {
    INFO(body);
    auto r = f.Call("PUT " + route, "", body);
    CHECK(r.status == 400);
    CHECK(json::parse(r.json).contains("error"));
    CHECK(**ReadLostBookieRecoveryDelay(f.store.get()) == absl::Seconds(300));
  }

  auto cleared = f.Call("DELETE " + route);
  REQUIRE(cleared.status == 200);
  CHECK(json::parse(cleared.json) == json{{"set", false}});
  CHECK_FALSE(ReadLostBookieRecoveryDelay(f.store.get())->has_value());
}

}  // namespace
}  // namespace bk::autorecovery
