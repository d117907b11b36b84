// Ledger recovery against real bookie processes and a real ZooKeeper when
// the last ensemble lost bookies: recovery replaces the bookies that refuse
// its re-adds (as BookKeeper's does) instead of failing, and still refuses
// when the fence cannot cover every write quorum.

#include <catch2/catch.hpp>
#include <random>

#include "client/bookie_admin.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "proto/crc32c.h"
#include "test/support/bookie_cluster.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

uint64_t Seed() { return bk::testing::TestSeed(); }

std::string Uri(const std::string& name) {
  return "zk://" + test::SharedZkServer().hosts() + "/recovery-it/" + name;
}

std::unique_ptr<test::BookieCluster> StartCluster(const std::string& uri,
                                                  int n) {
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_BINARY;
  o.metadata_uri = uri;
  o.bookies = n;
  o.racks = {"/region/rack0", "/region/rack1"};
  o.zk_timeout_ms = 4000;
  auto c = test::BookieCluster::Start(o);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  return std::move(*c);
}

ClientOptions Options(const std::string& uri) {
  ClientOptions o;
  o.metadata_service_uri = uri;
  o.add_entry_timeout = absl::Seconds(2);
  o.read_entry_timeout = absl::Seconds(2);
  o.get_bookie_info_interval = absl::Milliseconds(200);
  o.get_bookie_info_timeout = absl::Milliseconds(500);
  o.placement.min_num_racks_per_write_quorum = 1;
  o.seed = Seed();
  return o;
}

std::string Payload(int64_t e) {
  std::string p = "entry " + std::to_string(e) + " ";
  p.resize(100, static_cast<char>('a' + e % 26));
  return p;
}

constexpr int kEntries = 100;

// Writes kEntries entries to a new ledger, every one acknowledged, and
// abandons it OPEN (its writer's client is destroyed, as a broker that
// crashed). Returns the ledger id.
int64_t WriteAndAbandon(const std::string& uri, int e, int wq, int aq) {
  auto client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto w = (*client)->CreateLedger({.ensemble_size = e,
                                    .write_quorum = wq,
                                    .ack_quorum = aq,
                                    .password = "pw"});
  REQUIRE(w.ok());
  std::vector<std::future<absl::StatusOr<int64_t>>> acks;
  for (int i = 0; i < kEntries; ++i) acks.push_back((*w)->Append(Payload(i)));
  for (int i = 0; i < kEntries; ++i) {
    auto r = acks[i].get();
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    REQUIRE(*r == i);
  }
  const int64_t id = (*w)->ledger_id();
  w->reset();
  return id;
}

proto::LedgerMetadata ReadMetadata(const std::string& uri, int64_t id) {
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  auto md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  return md->value;
}

// Every entry of the closed ledger from every replica its metadata names,
// each bookie asked directly (not through the client's quorum reads).
void CheckEveryReplica(const test::BookieCluster& cluster,
                       const proto::LedgerMetadata& md, int64_t id) {
  REQUIRE(md.state() == proto::CLOSED);
  REQUIRE(md.last_entry_id() == kEntries - 1);
  for (int s = 0; s < md.segments_size(); ++s) {
    const auto& seg = md.segments(s);
    const int64_t end = s + 1 < md.segments_size()
                            ? md.segments(s + 1).first_entry_id()
                            : md.last_entry_id() + 1;
    const int n = seg.bookies_size();
    for (int64_t e = seg.first_entry_id(); e < end; ++e) {
      for (int i = 0; i < md.write_quorum_size(); ++i) {
        const std::string& b = seg.bookies((e + i) % n);
        const int idx = cluster.IndexOf(b);
        REQUIRE(idx >= 0);
        if (!cluster.running(idx)) continue;  // the lost ones: segment 0
        auto admin = BookieAdmin::Connect(
            b,
            cluster.address(idx) + ":" + std::to_string(cluster.grpc_port(idx)),
            TlsClientOptions{});
        REQUIRE(admin.ok());
        auto got =
            (*admin)->ReadEntry(id, e, DigestType::kCrc32c, absl::Seconds(5));
        INFO("entry " << e << " on " << b << ": " << got.status().ToString());
        REQUIRE(got.ok());
        CHECK(got->payload == Payload(e));
      }
    }
  }
}

TEST_CASE("recovery replaces two read-only bookies of a WQ3/AQ2 write set",
          "[integration][client][recovery]") {
  INFO("seed " << Seed());
  const std::string uri = Uri("readonly");
  auto cluster = StartCluster(uri, 5);
  const int64_t id = WriteAndAbandon(uri, 3, 3, 2);
  const auto before = ReadMetadata(uri, id);
  REQUIRE(before.segments_size() == 1);
  // Two of the three turn read-only: they still answer the fence, but
  // refuse the re-adds, so no write set keeps AQ bookies that take adds.
  const std::string lost0 = before.segments(0).bookies(0);
  const std::string lost1 = before.segments(0).bookies(1);
  for (const auto& b : {lost0, lost1}) {
    REQUIRE(
        cluster->Restart(cluster->IndexOf(b), {"--forceReadOnlyBookie=true"})
            .ok());
  }

  auto client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto r = (*client)->OpenLedger(id, "pw", /*recover=*/true);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE((*r)->LastAddConfirmed() == kEntries - 1);
  auto it = (*r)->Read(0, kEntries - 1);
  LedgerEntry entry;
  int64_t next = 0;
  while (it->Next(&entry)) {
    REQUIRE(entry.payload == Payload(next));
    ++next;
  }
  REQUIRE(it->status().ok());
  REQUIRE(next == kEntries);

  // Every entry beyond the fenced LAC was re-added on the new ensemble
  // (a new segment from the first such entry, or the whole one when the
  // LAC the bookies knew was -1).
  const auto after = ReadMetadata(uri, id);
  for (const auto& b : after.segments(after.segments_size() - 1).bookies()) {
    CHECK(b != lost0);
    CHECK(b != lost1);
  }
  CheckEveryReplica(*cluster, after, id);
}

TEST_CASE("recovery replaces a dead bookie of an E3/WQ2/AQ2 write set",
          "[integration][client][recovery]") {
  INFO("seed " << Seed());
  const std::string uri = Uri("dead");
  auto cluster = StartCluster(uri, 4);
  const int64_t id = WriteAndAbandon(uri, 3, 2, 2);
  const auto before = ReadMetadata(uri, id);
  REQUIRE(before.segments_size() == 1);
  // The last entry is beyond every LAC the bookies know, so recovery
  // re-adds it; its write set is slots {(n-1) % 3, n % 3}: kill the first.
  const std::string dead = before.segments(0).bookies((kEntries - 1) % 3);
  REQUIRE(cluster->Kill(cluster->IndexOf(dead)).ok());

  auto client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto r = (*client)->OpenLedger(id, "pw", /*recover=*/true);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE((*r)->LastAddConfirmed() == kEntries - 1);
  const auto after = ReadMetadata(uri, id);
  for (const auto& b : after.segments(after.segments_size() - 1).bookies()) {
    CHECK(b != dead);
  }
  CheckEveryReplica(*cluster, after, id);
}

TEST_CASE(
    "recovery refuses while two of three bookies of a write quorum are "
    "unreachable, and succeeds once one is back",
    "[integration][client][recovery]") {
  INFO("seed " << Seed());
  const std::string uri = Uri("unreachable");
  auto cluster = StartCluster(uri, 5);
  const int64_t id = WriteAndAbandon(uri, 3, 3, 2);
  const auto before = ReadMetadata(uri, id);
  const std::string gone0 = before.segments(0).bookies(0);
  const std::string gone1 = before.segments(0).bookies(1);
  REQUIRE(cluster->Kill(cluster->IndexOf(gone0)).ok());
  REQUIRE(cluster->Kill(cluster->IndexOf(gone1)).ok());

  auto client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  // An entry acknowledged by the two unreachable bookies alone cannot be
  // ruled out: closing the ledger now could cut it off.
  auto refused = (*client)->OpenLedger(id, "pw", /*recover=*/true);
  REQUIRE(absl::IsUnavailable(refused.status()));
  const auto stuck = ReadMetadata(uri, id);
  CHECK(stuck.state() == proto::IN_RECOVERY);
  CHECK(stuck.segments_size() == 1);

  REQUIRE(cluster->Restart(cluster->IndexOf(gone0)).ok());
  // A new client: the first one's connection to gone0 is in gRPC's
  // reconnect back-off.
  client->reset();
  client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto r = (*client)->OpenLedger(id, "pw", /*recover=*/true);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE((*r)->LastAddConfirmed() == kEntries - 1);
  const auto after = ReadMetadata(uri, id);
  for (const auto& b : after.segments(after.segments_size() - 1).bookies()) {
    CHECK(b != gone1);
  }
  CheckEveryReplica(*cluster, after, id);
}

}  // namespace
}  // namespace bk::client
