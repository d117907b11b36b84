// Read permits through a real bookie's port: fencing never waits behind
// ordinary reads, parked long polls hold no read permit and a cancelled one
// leaves at once, and a range read whose client stops reading is cancelled
// by the server.
//
// The figure (fence latency with every read permit held by long polls) is
// printed by the first test case:
//   build/bin/integration_bookie_read_permits "fencing*" -s

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "proto/status_codes.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

proto::ReadEntryRequest LongPollRequest(uint64_t ledger, int64_t previous_lac,
                                        uint32_t timeout_ms) {
  proto::ReadEntryRequest req;
  req.set_ledger_id(ledger);
  req.set_entry_id(-1);
  req.set_long_poll(true);
  req.set_previous_lac(previous_lac);
  req.set_timeout_ms(timeout_ms);
  return req;
}

proto::ReadEntryResponse LongPoll(proto::Bookie::Stub* stub, uint64_t ledger,
                                  int64_t previous_lac, uint32_t timeout_ms) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(40)));
  proto::ReadEntryResponse resp;
  if (!stub->ReadEntry(&ctx, LongPollRequest(ledger, previous_lac, timeout_ms),
                       &resp)
           .ok()) {
    resp.set_status(proto::BK_EIO);
  }
  return resp;
}

proto::ReadEntryResponse FenceRead(proto::Bookie::Stub* stub, uint64_t ledger,
                                   const std::string& key) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  proto::ReadEntryRequest req;
  req.set_ledger_id(ledger);
  req.set_entry_id(-1);
  req.set_flags(proto::FENCE_LEDGER);
  req.set_master_key(key);
  proto::ReadEntryResponse resp;
  if (!stub->ReadEntry(&ctx, req, &resp).ok()) resp.set_status(proto::BK_EIO);
  return resp;
}

// Parked long polls, or (before parking held no permit) read permits in
// use: either way the polls have arrived.
bool PollsArrived(const BookieProcess& b, int n) {
  return MetricValue(b.http_port(), "bookie_long_polls_parked") == n ||
         MetricValue(b.http_port(), "bookie_reads_in_flight") == n;
}

TEST_CASE(
    "fencing and plain reads are served while long polls wait, however "
    "many",
    "[integration][bookie]") {
  TempDir dir;
  constexpr int kPermits = 2;
  auto b = StartBookie(BookieOptions(
      dir, "bk-fence-prio", FreshZkUri("fence-prio"),
      {{"maxPendingReadRequestsPerThread", std::to_string(kPermits)}}));
  auto stub = Connect(b->grpc_target());
  constexpr uint64_t L = 30;
  for (int e = 0; e < 2; ++e)
    REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k")) == proto::BK_EOK);

  // As many long polls as there are read permits, each on its own channel,
  // waiting for LAC > 0.
  std::vector<proto::ReadEntryResponse> polled(kPermits);
  std::vector<std::thread> pollers;
  for (int i = 0; i < kPermits; ++i) {
    pollers.emplace_back([&, i] {
      auto own = Connect(b->grpc_target());
      polled[i] = LongPoll(own.get(), L, 0, 20000);
    });
  }
  CHECK(
      PollUntil([&] { return PollsArrived(*b, kPermits); }, absl::Seconds(15)));

  // Fencing reads of other ledgers (the figure) and a plain read.
  constexpr int kFences = 20;
  std::vector<double> ms;
  int fenced = 0;
  for (int i = 0; i < kFences; ++i) {
    const absl::Time t0 = absl::Now();
    auto f = FenceRead(stub.get(), 100 + i, "k");
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
    if (f.status() == proto::BK_ENOENTRY || f.status() == proto::BK_EOK) {
      ++fenced;
    } else {
      INFO("fence " << i << " answered " << WireCodeName(f.status()));
      CHECK(false);
    }
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "fence under %d parked long polls (maxPendingReadRequests=%d): "
      "%d/%d fenced, latency p50 %.2f ms, max %.2f ms\n",
      kPermits, kPermits, fenced, kFences, ms[kFences / 2], ms.back());
  CHECK(Read(stub.get(), L, 0).status() == proto::BK_EOK);
  // And the fenced ledger's own recovery fence.
  CHECK(FenceRead(stub.get(), L, "k").status() == proto::BK_EOK);

  // Entry 2 carries LAC 1: every poll answers (a recovery add, since L is
  // fenced now).
  CHECK(AddOne(stub.get(), MakeAdd(L, 2, "k", 100, proto::RECOVERY_ADD)) ==
        proto::BK_EOK);
  for (auto& t : pollers) t.join();
  for (const auto& p : polled) {
    CHECK(p.status() == proto::BK_EOK);
    CHECK(p.max_lac() == 1);
  }
}

TEST_CASE("a long poll the client cancels leaves the bookie at once",
          "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(
      BookieOptions(dir, "bk-poll-cancel", FreshZkUri("poll-cancel"),
                    {{"maxPendingReadRequestsPerThread", "1"}}));
  auto stub = Connect(b->grpc_target());
  REQUIRE(AddOne(stub.get(), MakeAdd(31, 0)) == proto::BK_EOK);
  {
    // The server would wait 30 s (its cap); the client gives up at 300 ms.
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Milliseconds(300)));
    proto::ReadEntryResponse resp;
    grpc::Status s =
        stub->ReadEntry(&ctx, LongPollRequest(31, 5, 60000), &resp);
    CHECK(s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // Well within the poll's own timeout, nothing of it is left.
  CHECK(PollUntil(
      [&] {
        return MetricValue(b->http_port(), "bookie_long_polls_parked") == 0 &&
               MetricValue(b->http_port(), "bookie_reads_in_flight") == 0;
      },
      absl::Seconds(10)));
  CHECK(Read(stub.get(), 31, 0).status() == proto::BK_EOK);
}

TEST_CASE(
    "a range read whose client stops reading is cancelled at "
    "rangeReadTimeoutMs and its permit returns",
    "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-range-deadline",
                                     FreshZkUri("range-deadline"),
                                     {{"maxPendingReadRequestsPerThread", "1"},
                                      {"rangeReadTimeoutMs", "1000"}}));
  auto stub = Connect(b->grpc_target());
  // 200 entries of 4 KiB: far more than the client's receive window.
  constexpr uint64_t L = 32;
  proto::AddRequest batch;
  for (int e = 0; e < 200; ++e) *batch.add_entries() = MakeAdd(L, e, "k", 4096);
  auto out = AddBatches(stub.get(), {batch});
  REQUIRE(out.size() == 200);

  // A channel whose window (64 KiB) the range cannot fit in.
  auto slow = ConnectNoBdp(b->grpc_target());
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  proto::ReadEntriesRequest req;
  req.set_ledger_id(L);
  req.set_first_entry_id(0);
  req.set_last_entry_id(199);
  auto reader = slow->ReadEntries(&ctx, req);
  // The call returns before the request reaches the bookie: wait until the
  // stream holds the only read permit, or a probing read below could take
  // it first and the stream be refused (seen under CI load).
  REQUIRE(PollUntil(
      [&] {
        return MetricValue(b->http_port(), "bookie_reads_in_flight") == 1;
      },
      absl::Seconds(10)));
  // The stream holds the only read permit until the server cancels it.
  CHECK(PollUntil(
      [&] {
        return Read(stub.get(), L, 0).status() == proto::BK_ETOOMANYREQUESTS;
      },
      absl::Seconds(10)));
  CHECK(PollUntil(
      [&] { return Read(stub.get(), L, 0).status() == proto::BK_EOK; },
      absl::Seconds(15)));
  // The client reads what reached it, then the cancellation.
  proto::ReadEntryResponse msg;
  int got = 0;
  while (reader->Read(&msg)) ++got;
  grpc::Status s = reader->Finish();
  INFO(got << " entries, then " << s.error_message());
  CHECK(got < 200);
  CHECK(s.error_code() == grpc::StatusCode::CANCELLED);
}

}  // namespace
}  // namespace bk::it
