// The store contract against a real ZooKeeper server, started once for this
// test binary and stopped by pid at exit.

#include "catch2/catch.hpp"
#include "metadata/zk/zk_store.h"
#include "test/support/poll_until.h"
#include "test/support/zk_server.h"

struct ZkBackend {
  static bk::test::ZkServer& Server() {
    static std::unique_ptr<bk::test::ZkServer> server = [] {
      auto s = bk::test::ZkServer::Start();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
        std::abort();
      }
      return *std::move(s);
    }();
    return *server;
  }
  static std::string Uri(const std::string& cluster) {
    return "zk://" + Server().hosts() + "/test/" + cluster;
  }
  static bk::metadata::OpenOptions Options() {
    bk::metadata::OpenOptions o;
    o.session_timeout = absl::Seconds(4);
    return o;
  }
  // Expires the store's session from outside: a second handle joins the
  // session and closes it. The owner may win the session back if it
  // reconnects before the close (the server moves the session to whichever
  // handle spoke last), so repeat, boundedly, until the owner has seen the
  // expiry and opened a new session.
  static void Expire(bk::metadata::MetadataStore* store) {
    auto& session = static_cast<bk::metadata::ZkStore*>(store)->session();
    const uint64_t before = session.generation();
    for (int attempt = 0; attempt < 20; ++attempt) {
      const clientid_t id = session.client_id();
      REQUIRE(bk::test::ExpireZkSession(Server().hosts(), id, absl::Seconds(10))
                  .ok());
      if (bk::testing::PollUntil([&] { return session.generation() != before; },
                                 absl::Seconds(2), absl::Milliseconds(10))) {
        return;
      }
    }
    FAIL("the session did not expire after 20 attempts");
  }
  // Writes `bytes` straight into the ledger's znode, past every check.
  static void PutRawLedger(bk::metadata::MetadataStore* store,
                           bk::metadata::LedgerId id,
                           const std::string& bytes) {
    auto* zk = static_cast<bk::metadata::ZkStore*>(store);
    bk::metadata::ZkSession& s = zk->session();
    std::string path = zk->layout().Ledgers();
    auto parts = bk::metadata::LedgerPathParts(id);
    for (size_t i = 0; i < parts.size(); ++i) {
      path += "/" + parts[i];
      const std::string data = i + 1 == parts.size() ? bytes : "";
      auto r = s.Call([&](bk::metadata::ZkDone d) {
        s.Create(path, data, 0, std::move(d));
      });
      REQUIRE((r.rc == ZOK || r.rc == ZNODEEXISTS));
      if (i + 1 == parts.size() && r.rc == ZNODEEXISTS) {
        r = s.Call([&](bk::metadata::ZkDone d) {
          s.Set(path, data, -1, std::move(d));
        });
        REQUIRE(r.rc == ZOK);
      }
    }
  }
};

#define CONTRACT_BACKEND ZkBackend

#include "test/unit/metadata/store_contract.inc"
// After store_contract.inc, whose helpers it uses.
#include "test/unit/metadata/children_watch_contract.inc"

TEST_CASE(
    "an unreachable ensemble fails within the connect timeout, naming "
    "the URI",
    "[metadata][integration]") {
  bk::metadata::OpenOptions o;
  o.connect_timeout = absl::Seconds(1);
  const std::string uri = "zk://127.0.0.1:1/bk";
  auto s = bk::metadata::Open(uri, o);
  CHECK(absl::IsUnavailable(s.status()));
  CHECK(s.status().message().find(uri) != absl::string_view::npos);
}

TEST_CASE(
    "a host list that does not resolve is refused at once, saying so and "
    "naming the URI",
    "[metadata][integration]") {
  // .invalid never resolves (RFC 6761).
  const std::string uri = "zk://no-such-host.invalid:2181/bk";
  auto s = bk::metadata::Open(uri);
  CHECK(absl::IsInvalidArgument(s.status()));
  CHECK(s.status().message().find(uri) != absl::string_view::npos);
  CHECK(s.status().message().find("resolves") != absl::string_view::npos);
}

TEST_CASE("the ZooKeeper layout follows BookKeeper's",
          "[metadata][integration]") {
  const std::string cluster = contract::UniqueCluster();
  auto store = contract::OpenStore<ZkBackend>(cluster);
  REQUIRE(store->CreateLedger(1234567890123LL, contract::Md()).ok());
  REQUIRE(store->RegisterBookie(contract::Bookie("b1", true)).ok());
  auto* zk = static_cast<bk::metadata::ZkStore*>(store.get());
  auto& s = zk->session();
  const std::string root = "/test/" + cluster;
  for (const std::string& path :
       {root + "/ledgers/000/0001/2345/6789/L0123", root + "/idgen",
        root + "/available/readonly/b1", root + "/cookies"}) {
    INFO(path);
    auto r = s.Call(
        [&](bk::metadata::ZkDone d) { s.Exists(path, false, std::move(d)); });
    CHECK(r.rc == ZOK);
  }
}
