// Probe on placement against real bookie processes and a real ZooKeeper
// server: createLedger asks the policy's candidates for a fresh
// GetBookieInfo and chooses among those that answer within the bound; an
// ensemble change probes the replacement's candidates the same way.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "client/client.h"
#include "metadata/metadata_store.h"
#include "prometheus/registry.h"
#include "test/support/bookie_cluster.h"
#include "test/support/labelled_counter.h"
#include "test/support/poll_until.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

uint64_t Seed() { return bk::testing::TestSeed(); }

// Four real bookies under `uri`, racks assigned round robin (none: one
// rack). A long session (on a server that grants one): a suspended bookie
// stays registered (and eligible).
test::BookieCluster::Options FourBookies(const std::string& uri,
                                         std::vector<std::string> racks) {
  test::BookieCluster::Options co;
  co.bookie_binary = BK_BOOKIE_BINARY;
  co.metadata_uri = uri;
  co.bookies = 4;
  co.racks = std::move(racks);
  co.zk_timeout_ms = 60000;
  return co;
}

// An adaptive client that polls GetBookieInfo once, at start: a suspended
// bookie's silence is seen only by the probes.
ClientOptions AdaptiveClient(const std::string& uri) {
  ClientOptions o;
  o.metadata_service_uri = uri;
  o.seed = Seed();
  o.placement.weighting = placement::Weighting::kAdaptive;
  o.get_bookie_info_interval = absl::Hours(1);
  o.get_bookie_info_timeout = absl::Seconds(5);
  // Generous for a loaded test machine; the default is 50 ms.
  o.placement_probe_timeout = absl::Seconds(1);
  return o;
}

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
      "zk://" + test::LongSessionZkServer().hosts() + "/client-it/probe";
  auto cluster = test::BookieCluster::Start(
      FourBookies(uri, {"/region/rack0", "/region/rack1"}));
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());
  ClientOptions o = AdaptiveClient(uri);

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

// Ledgers of one client, E2/WQ2/AQ2, each with entry 0 written.
std::vector<std::unique_ptr<LedgerWriter>> Ledgers(Client& client, int count) {
  std::vector<std::unique_ptr<LedgerWriter>> writers;
  for (int i = 0; i < count; ++i) {
    auto w = client.CreateLedger({.ensemble_size = 2,
                                  .write_quorum = 2,
                                  .ack_quorum = 2,
                                  .password = "pw"});
    REQUIRE(w.ok());
    REQUIRE((*w)->Append(std::string("entry 0")).get().ok());
    writers.push_back(*std::move(w));
  }
  return writers;
}

// Appends entry 1 to every ledger that holds `victim` and not `bad` (all at
// once) and returns how many changed their ensemble; checks that no later
// segment names `bad` (a replacement onto the silent bookie would show even
// after a later change on an add timeout replaced it again).
int ReplaceAll(std::vector<std::unique_ptr<LedgerWriter>>& writers,
               metadata::MetadataStore& store, const std::string& victim,
               const std::string& bad) {
  std::vector<std::pair<LedgerWriter*, std::future<absl::StatusOr<int64_t>>>>
      adds;
  for (auto& w : writers) {
    auto md = store.ReadLedger(w->ledger_id());
    REQUIRE(md.ok());
    const auto& b = md->value.segments(0).bookies();
    if (std::find(b.begin(), b.end(), victim) != b.end()) {
      adds.emplace_back(w.get(), w->Append(std::string("entry 1")));
    }
  }
  for (auto& [w, added] : adds) {
    auto r = added.get();
    INFO("ledger " << w->ledger_id() << ": " << r.status().ToString());
    REQUIRE(r.ok());
    auto md = store.ReadLedger(w->ledger_id());
    REQUIRE(md.ok());
    const auto& segments = md->value.segments();
    REQUIRE(segments.size() >= 2);
    for (const auto& seg : segments) {
      for (const auto& b : seg.bookies()) CHECK(b != bad);
    }
    for (const auto& b : segments[segments.size() - 1].bookies()) {
      CHECK(b != victim);
    }
  }
  return static_cast<int>(adds.size());
}

double Probes(const Client& client, const std::string& result) {
  return bk::testing::LabelledCounter(*client.metrics_registry(),
                                      "bk_client_placement_probes_total",
                                      "result", result);
}

TEST_CASE(
    "probe on placement: an ensemble change probes the replacement's "
    "candidates and does not choose one that does not answer",
    "[integration][client]") {
  INFO("seed " << Seed());
  const std::string uri = "zk://" + test::LongSessionZkServer().hosts() +
                          "/client-it/probe-replace";
  // One rack: every bookie may replace any other.
  auto cluster = test::BookieCluster::Start(FourBookies(uri, {}));
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());

  ClientOptions o = AdaptiveClient(uri);
  o.placement.adaptive.probe_candidates = 2;
  o.add_entry_timeout = absl::Seconds(3);  // an add to the silent one
  auto client = Client::Create(o);
  REQUIRE(client.ok());

  // bk3 goes silent (registered, never answering) before the ledgers are
  // made, so that createLedger's probes keep them on bk0-bk2; then bk0
  // dies. A ledger on bk0 and another healthy bookie has two candidates
  // for its replacement: the third healthy bookie and bk3.
  // The client is connected to bk3 first (its first poll answered), so bk3
  // hangs on a live connection: its calls time out. Had the client first
  // connected after the suspension, the handshake would fail and the
  // client would leave bk3 out as unreachable without probing it.
  REQUIRE(bk::testing::PollUntil([&] {
    return bk::testing::LabelledCounter(*(*client)->metrics_registry(),
                                        "bk_client_bookie_info_polls_total",
                                        "result", "ok") >= 4;
  }));
  const std::string bad = (*cluster)->id(3);
  const std::string victim = (*cluster)->id(0);
  REQUIRE((*cluster)->Suspend(3).ok());
  auto writers = Ledgers(**client, 12);
  REQUIRE((*cluster)->Kill(0).ok());
  const double answered = Probes(**client, "answered");
  const double failed = Probes(**client, "failed");
  REQUIRE(answered >= 0);

  const int changed = ReplaceAll(writers, **store, victim, bad);
  CHECK(changed >= 1);  // about 8 of 12: a ledger on bk0 changes
  // Each replacement asked both candidates: the healthy one answered, bk3
  // did not.
  CHECK(Probes(**client, "answered") - answered == changed);
  CHECK(Probes(**client, "failed") - failed == changed);
  REQUIRE((*cluster)->Resume(3).ok());
}

}  // namespace
}  // namespace bk::client
