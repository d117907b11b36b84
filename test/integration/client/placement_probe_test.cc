// Probe on placement against real bookie processes and a real ZooKeeper
// server: createLedger asks the policy's candidates for a fresh
// GetBookieInfo and chooses among those that answer within the bound.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>

#include "client/client.h"
#include "metadata/metadata_store.h"
#include "test/support/bookie_cluster.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

uint64_t Seed() { return bk::testing::TestSeed(); }

// Bookies of the ledgers `client` creates, E2/WQ2/AQ2, `count` of them.
std::vector<std::string> Placed(Client& client, const std::string& uri,
                                int count) {
  std::vector<std::string> placed;
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  for (int i = 0; i < count; ++i) {
    auto w = client.CreateLedger({.ensemble_size = 2,
                                  .write_quorum = 2,
                                  .ack_quorum = 2,
                                  .password = "pw",
                                  .expected_write_bytes_per_second = 1e6});
    REQUIRE(w.ok());
    auto md = (*store)->ReadLedger((*w)->ledger_id());
    REQUIRE(md.ok());
    for (const auto& b : md->value.segments(0).bookies()) placed.push_back(b);
  }
  return placed;
}

TEST_CASE(
    "probe on placement: a bookie that does not answer its probe is not "
    "chosen, and createLedger still returns",
    "[integration][client]") {
  INFO("seed " << Seed());
  const std::string uri =
      "zk://" + test::SharedZkServer().hosts() + "/client-it/probe";
  test::BookieCluster::Options co;
  co.bookie_binary = BK_BOOKIE_BINARY;
  co.metadata_uri = uri;
  co.bookies = 4;
  co.racks = {"/region/rack0", "/region/rack1"};
  // A long session: the suspended bookie stays registered (and eligible).
  co.zk_timeout_ms = 60000;
  auto cluster = test::BookieCluster::Start(co);
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());

  ClientOptions o;
  o.metadata_service_uri = uri;
  o.seed = Seed();
  o.placement.weighting = placement::Weighting::kAdaptive;
  // One background poll at start, none during the test: the suspended
  // bookie's silence is seen only by the probes.
  o.get_bookie_info_interval = absl::Hours(1);
  o.get_bookie_info_timeout = absl::Seconds(5);
  // Generous for a loaded test machine; the default is 50 ms.
  o.placement_probe_timeout = absl::Seconds(1);

  const int bad = 3;
  const std::string bad_id = (*cluster)->id(bad);
  REQUIRE((*cluster)->Suspend(bad).ok());

  // Without probes the policy does not know: the silent bookie is chosen
  // about half the time (one bookie of its rack's two; 16 ledgers: missed
  // with probability 2^-16).
  {
    auto plain = Client::Create(o);
    REQUIRE(plain.ok());
    const std::vector<std::string> placed = Placed(**plain, uri, 16);
    CHECK(std::count(placed.begin(), placed.end(), bad_id) > 0);
  }
  // With 2 probes per slot every bookie is asked (4 candidates of 4); the
  // three that answer hold every slot.
  o.placement.adaptive.probe_candidates = 2;
  auto probing = Client::Create(o);
  REQUIRE(probing.ok());
  const std::vector<std::string> placed = Placed(**probing, uri, 6);
  REQUIRE(placed.size() == 12);
  CHECK(std::count(placed.begin(), placed.end(), bad_id) == 0);

  REQUIRE((*cluster)->Resume(bad).ok());
}

}  // namespace
}  // namespace bk::client
