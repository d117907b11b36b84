// Garbage collection of deleted ledgers through real processes: a client
// deletes a ledger in ZooKeeper, and every bookie of its ensemble drops its
// entries at its next GC pass, while a ledger that still has metadata stays
// whole.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <random>
#include <regex>
#include <thread>

#include "client/client.h"
#include "proto/bookie.grpc.pb.h"
#include "test/support/bookie_cluster.h"
#include "test/support/bookie_process.h"
#include "test/support/http_get.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

test::ZkServer& Zk() { return test::SharedZkServer(); }

uint64_t Seed() { return bk::testing::TestSeed(); }

std::string Payload(int64_t ledger, int64_t e) {
  std::string p =
      "ledger " + std::to_string(ledger) + " entry " + std::to_string(e) + " ";
  p.resize(300, static_cast<char>('a' + e % 26));
  return p;
}

// A bookie's answer to a plain read of one entry.
proto::StatusCode ReadStatus(test::BookieCluster& c, int i, int64_t ledger,
                             int64_t entry) {
  auto stub = proto::Bookie::NewStub(
      grpc::CreateChannel(c.address(i) + ":" + std::to_string(c.grpc_port(i)),
                          grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  proto::ReadEntryRequest req;
  req.set_ledger_id(static_cast<uint64_t>(ledger));
  req.set_entry_id(entry);
  proto::ReadEntryResponse resp;
  if (!stub->ReadEntry(&ctx, req, &resp).ok()) return proto::BK_EIO;
  return resp.status();
}

// The value of an unlabelled-by-us counter on bookie i's /metrics; -1 if
// absent.
double Metric(test::BookieCluster& c, int i, const std::string& name) {
  auto reply =
      bk::testing::HttpGet(c.http_port(i), "/metrics", true, c.address(i));
  std::smatch m;
  const std::regex re("\n" + name + "(\\{[^}]*\\})? ([0-9.e+]+)");
  if (!std::regex_search(reply.body, m, re)) return -1;
  return std::stod(m[2]);
}

TEST_CASE(
    "a ledger deleted through the client is dropped by every bookie's GC "
    "and the other ledger stays readable",
    "[integration][client][gc]") {
  INFO("seed " << Seed());
  const std::string uri = "zk://" + Zk().hosts() + "/gc-it";
  test::BookieCluster::Options co;
  co.bookie_binary = BK_BOOKIE_BINARY;
  co.metadata_uri = uri;
  co.bookies = 3;
  co.extra_flags = {"--gcWaitTime=1000"};  // the shortest allowed
  auto cluster = test::BookieCluster::Start(co);
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());
  test::BookieCluster& c = **cluster;

  ClientOptions o;
  o.metadata_service_uri = uri;
  o.seed = Seed();
  auto client = Client::Create(o);
  REQUIRE(client.ok());
  constexpr int kEntries = 50;
  std::vector<int64_t> ids;
  for (int l = 0; l < 2; ++l) {
    auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                      .write_quorum = 3,
                                      .ack_quorum = 3,
                                      .password = "pw"});
    REQUIRE(w.ok());
    const int64_t id = (*w)->ledger_id();
    for (int e = 0; e < kEntries; ++e) {
      auto r = (*w)->Append(Payload(id, e)).get();
      INFO(r.status().ToString());
      REQUIRE(r.ok());
    }
    REQUIRE((*w)->Close().ok());
    ids.push_back(id);
  }
  const int64_t doomed = ids[0], kept = ids[1];
  // Ack quorum 3: every bookie holds every entry of both.
  for (int i = 0; i < c.size(); ++i) {
    REQUIRE(ReadStatus(c, i, doomed, 0) == proto::BK_EOK);
    REQUIRE(ReadStatus(c, i, kept, 0) == proto::BK_EOK);
  }

  REQUIRE((*client)->DeleteLedger(doomed).ok());

  for (int i = 0; i < c.size(); ++i) {
    INFO("bookie " << c.id(i));
    CHECK(testing::PollUntil(
        [&] {
          const proto::StatusCode s = ReadStatus(c, i, doomed, kEntries - 1);
          return s == proto::BK_ENOLEDGER || s == proto::BK_ENOENTRY;
        },
        absl::Seconds(60)));
    CHECK(Metric(c, i, "bookie_deleted_ledgers_total") == 1);
    CHECK(Metric(c, i, "bookie_gc_metadata_errors_total") == 0);
    CHECK(Metric(c, i, "bookie_gc_metadata_reads_total") >= 1);
    for (int64_t e = 0; e < kEntries; ++e) {
      const proto::StatusCode s = ReadStatus(c, i, doomed, e);
      CHECK((s == proto::BK_ENOLEDGER || s == proto::BK_ENOENTRY));
      CHECK(ReadStatus(c, i, kept, e) == proto::BK_EOK);
    }
  }
  auto r = (*client)->OpenLedger(kept, "pw");
  REQUIRE(r.ok());
  REQUIRE((*r)->LastAddConfirmed() == kEntries - 1);
  auto it = (*r)->Read(0, kEntries - 1);
  LedgerEntry entry;
  int64_t next = 0;
  while (it->Next(&entry)) {
    REQUIRE(entry.entry_id == next);
    REQUIRE(entry.payload == Payload(kept, next));
    ++next;
  }
  INFO(it->status().ToString());
  REQUIRE(it->status().ok());
  REQUIRE(next == kEntries);
  CHECK((*client)->OpenLedger(doomed, "pw").status().code() ==
        absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace bk::client
