// The bookie service's long polls and tail streams over the wire: a
// reader waiting for the LAC to move, and a tail stream pushing entries as
// they are confirmed.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <vector>

#include "test/unit/bookie/service_harness.h"

namespace bk::bookie {
namespace {

using testing::MakeAdd;
using testing::SendBatches;
using testing::ServiceHarness;

TEST_CASE("a long poll over the wire answers once the LAC moves",
          "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  *b[0].add_entries() = MakeAdd(7, 0, "a");
  SendBatches(h.stub(), b);
  grpc::ClientContext ctx;
  proto::ReadEntryRequest req;
  req.set_ledger_id(7);
  req.set_entry_id(-1);
  req.set_long_poll(true);
  req.set_previous_lac(-1);
  req.set_timeout_ms(20000);
  proto::ReadEntryResponse resp;
  std::promise<grpc::Status> done;
  h.stub()->async()->ReadEntry(&ctx, &req, &resp,
                               [&](grpc::Status s) { done.set_value(s); });
  auto f = done.get_future();
  CHECK(f.wait_for(std::chrono::milliseconds(0)) ==
        std::future_status::timeout);
  std::vector<proto::AddRequest> next(1);
  *next[0].add_entries() = MakeAdd(7, 1, "b");  // carries LAC 0
  SendBatches(h.stub(), next);
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(f.get().ok());
  CHECK(resp.max_lac() == 0);
  CHECK(resp.status() == proto::BK_EOK);
  CHECK(resp.entry_id() == 0);
}

TEST_CASE(
    "a tail stream pushes every stride-th entry once the LAC reaches it and "
    "ends when the ledger stays idle",
    "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  for (int e = 0; e < 10; ++e) *b[0].add_entries() = MakeAdd(9, e, "t");
  SendBatches(h.stub(), b);  // entry 9 carries LAC 8
  grpc::ClientContext ctx;
  proto::TailEntriesRequest req;
  req.set_ledger_id(9);
  req.set_first_entry_id(1);
  req.set_stride(3);
  req.set_max_entries_per_message(2);
  req.set_idle_timeout_ms(300);
  auto reader = h.stub()->TailEntries(&ctx, req);
  std::vector<int64_t> ids;
  proto::ReadEntryResponse msg;
  auto take = [&] {
    REQUIRE(reader->Read(&msg));
    REQUIRE(msg.status() == proto::BK_EOK);
    for (int i = 0; i <= msg.more_bodies_size(); ++i) {
      const int64_t id = msg.entry_id() + 3 * i;
      CHECK(id <= msg.max_lac());
      ids.push_back(id);
    }
  };
  while (ids.size() < 3) take();  // 1, 4, 7: confirmed already
  CHECK(ids == std::vector<int64_t>{1, 4, 7});
  std::vector<proto::AddRequest> more(1);
  for (int e = 10; e < 14; ++e) *more[0].add_entries() = MakeAdd(9, e, "t");
  SendBatches(h.stub(), more);  // LAC 12: entry 10 is confirmed, 13 not
  take();
  CHECK(ids == std::vector<int64_t>{1, 4, 7, 10});
  // Nothing more is confirmed: after the idle timeout the stream ends.
  CHECK_FALSE(reader->Read(&msg));
  CHECK(reader->Finish().ok());
}

TEST_CASE(
    "a tail stream ends with ENOENTRY at a confirmed entry the bookie does "
    "not hold",
    "[bookie][service]") {
  ServiceHarness h;
  std::vector<proto::AddRequest> b(1);
  for (int e : {0, 1, 3, 4}) *b[0].add_entries() = MakeAdd(5, e, "g");
  SendBatches(h.stub(), b);  // entry 4 carries LAC 3; entry 2 is elsewhere
  grpc::ClientContext ctx;
  proto::TailEntriesRequest req;
  req.set_ledger_id(5);
  req.set_first_entry_id(0);
  req.set_max_entries_per_message(8);
  auto reader = h.stub()->TailEntries(&ctx, req);
  proto::ReadEntryResponse msg;
  REQUIRE(reader->Read(&msg));
  CHECK(msg.status() == proto::BK_EOK);
  CHECK(msg.entry_id() == 0);
  CHECK(msg.more_bodies_size() == 1);  // entry 1; entry 2 ends the stream
  REQUIRE(reader->Read(&msg));
  CHECK(msg.status() == proto::BK_ENOENTRY);
  CHECK(msg.entry_id() == 2);
  CHECK_FALSE(reader->Read(&msg));
  CHECK(reader->Finish().ok());
}

TEST_CASE("a long poll on a ledger the bookie has not seen claims no LAC",
          "[bookie][service]") {
  // A tailing reader asks every ensemble member; one that has no entry of
  // a new ledger yet must not answer max_lac 0 (entry 0 confirmed).
  ServiceHarness h;
  grpc::ClientContext ctx;
  proto::ReadEntryRequest req;
  req.set_ledger_id(4242);
  req.set_entry_id(-1);
  req.set_long_poll(true);
  req.set_previous_lac(-1);
  req.set_timeout_ms(1000);
  proto::ReadEntryResponse resp;
  REQUIRE(h.stub()->ReadEntry(&ctx, req, &resp).ok());
  CHECK(resp.status() != proto::BK_EOK);
  CHECK(resp.max_lac() == -1);
}

}  // namespace
}  // namespace bk::bookie
