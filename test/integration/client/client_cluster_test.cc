// The client against real bookie processes (build/bin/bookie) and a real
// ZooKeeper server: durability through a SIGKILL, quarantine and
// re-admission.

#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "proto/crc32c.h"
#include "test/support/bookie_cluster.h"
#include "test/support/poll_until.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

test::ZkServer& Zk() { return test::SharedZkServer(); }

uint64_t Seed() { return bk::testing::TestSeed(); }

std::string Uri(const std::string& name) {
  return "zk://" + Zk().hosts() + "/client-it/" + name;
}

std::unique_ptr<test::BookieCluster> StartCluster(const std::string& uri, int n,
                                                  int zk_timeout_ms) {
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_BINARY;
  o.metadata_uri = uri;
  o.bookies = n;
  o.racks = {"/region/rack0", "/region/rack1"};
  o.zk_timeout_ms = zk_timeout_ms;
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
  o.seed = Seed();
  return o;
}

// A payload that proves its own integrity and identity.
std::string Payload(int64_t e) {
  std::string p = "entry " + std::to_string(e) + " ";
  p.resize(200, static_cast<char>('a' + e % 26));
  const uint32_t crc = crc32c::Value(p.data(), p.size());
  p.append(reinterpret_cast<const char*>(&crc), sizeof(crc));
  return p;
}

TEST_CASE("10,000 entries on E3/WQ3/AQ2 survive a SIGKILLed bookie",
          "[integration][client]") {
  INFO("seed " << Seed());
  const std::string uri = Uri("kill");
  auto cluster = StartCluster(uri, 4, 4000);
  auto client = Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                    .write_quorum = 3,
                                    .ack_quorum = 2,
                                    .password = "pw"});
  REQUIRE(w.ok());

  constexpr int kEntries = 10000;
  constexpr int kWindow = 500;  // appends in flight
  absl::Mutex mu;
  std::vector<bool> acked(kEntries, false);
  int answered = 0;
  int failures = 0;
  std::string victim;
  for (int e = 0; e < kEntries; ++e) {
    {
      absl::MutexLock l(&mu);
      auto room = [&] { return e - answered < kWindow; };
      mu.Await(absl::Condition(&room));
    }
    if (e == kEntries / 2) {
      // Kill a bookie of the ledger's current ensemble.
      auto store = metadata::Open(uri);
      REQUIRE(store.ok());
      auto md = (*store)->ReadLedger((*w)->ledger_id());
      REQUIRE(md.ok());
      const auto& seg = md->value.segments(md->value.segments_size() - 1);
      victim = seg.bookies(1);
      REQUIRE(cluster->Kill(cluster->IndexOf(victim)).ok());
    }
    // No Catch assertions off the test thread: record, check below.
    (*w)->Append(Payload(e), [&, e](absl::StatusOr<int64_t> r) {
      absl::MutexLock l(&mu);
      ++answered;
      if (r.ok() && *r == e) {
        acked[e] = true;
      } else {
        ++failures;
      }
    });
  }
  {
    absl::MutexLock l(&mu);
    auto all = [&] { return answered == kEntries; };
    REQUIRE(mu.AwaitWithTimeout(absl::Condition(&all), absl::Seconds(120)));
    CHECK(failures == 0);
  }
  REQUIRE((*w)->Close().ok());
  w->reset();

  // A different client recovers (a no-op: closed) and reads everything.
  auto reader_client = Client::Create(Options(uri));
  REQUIRE(reader_client.ok());
  auto ids = (*reader_client)->ListLedgers();
  REQUIRE(ids.ok());
  REQUIRE(ids->size() == 1);
  auto r = (*reader_client)->OpenLedger(ids->front(), "pw");
  REQUIRE(r.ok());
  REQUIRE((*r)->LastAddConfirmed() == kEntries - 1);
  auto it = (*r)->Read(0, kEntries - 1);
  LedgerEntry entry;
  int64_t next = 0;
  while (it->Next(&entry)) {
    REQUIRE(entry.entry_id == next);
    REQUIRE(entry.payload == Payload(next));
    ++next;
  }
  INFO(it->status().ToString());
  REQUIRE(it->status().ok());
  REQUIRE(next == kEntries);
  for (int e = 0; e < kEntries; ++e) REQUIRE(acked[e]);

  // The killed bookie comes back with its data (the helper's Restart).
  REQUIRE(cluster->Restart(cluster->IndexOf(victim)).ok());
}

TEST_CASE("a quarantined bookie is avoided, then re-admitted when healthy",
          "[integration][client]") {
  INFO("seed " << Seed());
  // A long session, on the server that grants one (the shared server's
  // 100 ms tick caps sessions at 2 s): the suspended bookie stays
  // registered, so it is the quarantine that keeps it out.
  const std::string uri =
      "zk://" + test::LongSessionZkServer().hosts() + "/client-it/quarantine";
  auto cluster = StartCluster(uri, 4, 20000);
  ClientOptions o = Options(uri);
  o.bookie_error_threshold_per_interval = 2;
  o.bookie_quarantine_time = absl::Hours(1);
  o.quarantine_release_healthy_reports = 2;
  o.placement.min_num_racks_per_write_quorum = 1;
  auto client = Client::Create(o);
  REQUIRE(client.ok());
  const int bad = 3;
  const std::string bad_id = cluster->id(bad);
  auto quarantined = [&] {
    auto q = (*client)->QuarantinedBookies();
    return std::find(q.begin(), q.end(), bad_id) != q.end();
  };

  REQUIRE(cluster->Suspend(bad).ok());
  // Its GetBookieInfo probes time out: errors past the threshold.
  REQUIRE(bk::testing::PollUntil(quarantined));
  for (int i = 0; i < 20; ++i) {
    auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                      .write_quorum = 3,
                                      .ack_quorum = 2,
                                      .password = "pw"});
    REQUIRE(w.ok());
    auto f = (*w)->Append("x");
    REQUIRE(f.get().ok());
    auto store = metadata::Open(uri);
    REQUIRE(store.ok());
    auto md = (*store)->ReadLedger((*w)->ledger_id());
    REQUIRE(md.ok());
    for (const auto& b : md->value.segments(0).bookies()) CHECK(b != bad_id);
  }

  REQUIRE(cluster->Resume(bad).ok());
  REQUIRE(bk::testing::PollUntil([&] { return !quarantined(); }));
  bool chosen = false;
  for (int i = 0; i < 40 && !chosen; ++i) {
    auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                      .write_quorum = 3,
                                      .ack_quorum = 2,
                                      .password = "pw"});
    REQUIRE(w.ok());
    auto store = metadata::Open(uri);
    REQUIRE(store.ok());
    auto md = (*store)->ReadLedger((*w)->ledger_id());
    REQUIRE(md.ok());
    for (const auto& b : md->value.segments(0).bookies()) {
      chosen |= b == bad_id;
    }
    if (chosen) {
      auto f = (*w)->Append("back");
      REQUIRE(f.get().ok());
      REQUIRE((*w)->Close().ok());
    }
  }
  CHECK(chosen);
}

}  // namespace
}  // namespace bk::client
