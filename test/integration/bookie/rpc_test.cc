// The Bookie service through the real gRPC port of a real bookie process:
// fencing, master key, long poll, permits, crash and restart, hostile input.

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;
using bk::testing::SendRaw;

uint64_t Seed() {
  const uint64_t seed = std::random_device{}();
  std::printf("seed=%llu\n", static_cast<unsigned long long>(seed));
  return seed;
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

proto::ReadEntryResponse LongPoll(proto::Bookie::Stub* stub, uint64_t ledger,
                                  int64_t previous_lac, uint32_t timeout_ms) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  proto::ReadEntryRequest req;
  req.set_ledger_id(ledger);
  req.set_entry_id(-1);
  req.set_long_poll(true);
  req.set_previous_lac(previous_lac);
  req.set_timeout_ms(timeout_ms);
  proto::ReadEntryResponse resp;
  if (!stub->ReadEntry(&ctx, req, &resp).ok()) resp.set_status(proto::BK_EIO);
  return resp;
}

TEST_CASE("fencing, master key and long poll through a real bookie's port",
          "[integration][bookie]") {
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-rpc", FreshZkUri("rpc")));
  auto stub = Connect(b->grpc_target());
  constexpr uint64_t L = 10;
  for (int e = 0; e < 3; ++e)
    REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k")) == proto::BK_EOK);

  // Unknown ledger and entry.
  CHECK(Read(stub.get(), 999, 0).status() == proto::BK_ENOLEDGER);
  CHECK(Read(stub.get(), L, 77).status() == proto::BK_ENOENTRY);

  // Wrong master key: EUA, for adds and for fencing.
  CHECK(AddOne(stub.get(), MakeAdd(L, 3, "not-k")) == proto::BK_EUA);
  CHECK(FenceRead(stub.get(), L, "not-k").status() == proto::BK_EUA);

  // Long poll: the LAC is 1 (entry 2 carries LAC 1).
  SECTION("long poll answers at the timeout when the LAC stays") {
    const absl::Time t0 = absl::Now();
    auto r = LongPoll(stub.get(), L, 1, 300);
    CHECK(absl::Now() - t0 >= absl::Milliseconds(250));
    CHECK(r.status() == proto::BK_EOK);
    CHECK(r.max_lac() == 1);
  }
  SECTION("long poll answers when the LAC passes previous_lac") {
    proto::ReadEntryResponse r;
    std::thread poller([&] { r = LongPoll(stub.get(), L, 1, 20000); });
    // Entry 3 carries LAC 2: the poll must answer long before its timeout.
    REQUIRE(AddOne(stub.get(), MakeAdd(L, 3, "k")) == proto::BK_EOK);
    poller.join();
    CHECK(r.max_lac() == 2);
    CHECK(r.status() == proto::BK_EOK);
    auto d = entry::Decode(r.body(), entry::DigestType::kCrc32c, L, 2);
    CHECK(d.ok());
  }
  SECTION(
      "fenced ledger refuses plain adds, takes recovery adds, and stays "
      "fenced across a restart") {
    auto f = FenceRead(stub.get(), L, "k");
    CHECK(f.status() == proto::BK_EOK);
    CHECK(AddOne(stub.get(), MakeAdd(L, 3, "k")) == proto::BK_EFENCED);
    CHECK(AddOne(stub.get(), MakeAdd(L, 3, "k", 100, proto::RECOVERY_ADD)) ==
          proto::BK_EOK);
    CHECK(ReadsBackIntact(stub.get(), L, 3));
    // Another ledger is not affected.
    CHECK(AddOne(stub.get(), MakeAdd(L + 1, 0, "k")) == proto::BK_EOK);

    b->Signal(SIGTERM);
    REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
    BK_REQUIRE_OK(b->Restart());
    stub = Connect(b->grpc_target());
    CHECK(AddOne(stub.get(), MakeAdd(L, 4, "k")) == proto::BK_EFENCED);
    CHECK(AddOne(stub.get(), MakeAdd(L, 4, "not-k")) == proto::BK_EUA);
    for (int e = 0; e < 4; ++e) CHECK(ReadsBackIntact(stub.get(), L, e));
  }
}

TEST_CASE("exhausted add and read permits answer ETOOMANYREQUESTS and recover",
          "[integration][bookie]") {
  TempDir dir;
  BookieProcessOptions o =
      BookieOptions(dir, "bk-permits", FreshZkUri("permits"),
                    {{"maxPendingAddRequestsPerThread", "1"},
                     {"maxPendingReadRequestsPerThread", "1"},
                     {"testingSyncDelayMs", "300"}});
  o.binary = TestingBookieBinary();
  auto b = StartBookie(std::move(o));
  auto stub = Connect(b->grpc_target());
  // One batch of three: the first takes the only permit and waits for a
  // slow sync; the other two are refused at once.
  proto::AddRequest batch;
  for (int e = 0; e < 3; ++e) *batch.add_entries() = MakeAdd(20, e);
  auto out = AddBatches(stub.get(), {batch});
  REQUIRE(out.size() == 3);
  CHECK(out[{20, 0}] == proto::BK_EOK);
  CHECK(out[{20, 1}] == proto::BK_ETOOMANYREQUESTS);
  CHECK(out[{20, 2}] == proto::BK_ETOOMANYREQUESTS);
  // The permit came back.
  CHECK(AddOne(stub.get(), MakeAdd(20, 1)) == proto::BK_EOK);

  // A parked long poll holds no read permit (read_permits_test.cc has the
  // rest): with the only read permit free, a plain read is served while the
  // poll waits; an add carrying LAC 1 then answers the poll.
  proto::ReadEntryResponse polled;
  std::thread poller([&] { polled = LongPoll(stub.get(), 20, 0, 20000); });
  CHECK(PollUntil(
      [&] {
        return MetricValue(b->http_port(), "bookie_long_polls_parked") == 1;
      },
      absl::Seconds(15)));
  CHECK(Read(stub.get(), 20, 0).status() == proto::BK_EOK);
  CHECK(AddOne(stub.get(), MakeAdd(20, 2)) == proto::BK_EOK);
  poller.join();
  CHECK(polled.status() == proto::BK_EOK);
  CHECK(ReadsBackIntact(stub.get(), 20, 0));
  CHECK(ReadsBackIntact(stub.get(), 20, 1));
}

TEST_CASE(
    "SIGKILL during adds: every acknowledged entry reads back intact "
    "after restart",
    "[integration][bookie]") {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-crash", FreshZkUri("crash")));
  auto stub = Connect(b->grpc_target());

  // Entries round-robin over four ledgers, random sizes; a window of 2,000
  // unanswered entries.
  constexpr int kLedgers = 4;
  constexpr int64_t kWindow = 2000;
  constexpr int64_t kKillAfterAcks = 5000;
  struct Sent {
    uint64_t ledger;
    int64_t entry;
    size_t size;
  };
  std::vector<Sent> sent;
  sent.reserve(200000);
  absl::Mutex mu;
  int64_t acked_count = 0;
  std::map<std::pair<uint64_t, int64_t>, proto::StatusCode> answers;
  bool stop = false;

  grpc::ClientContext ctx;
  auto stream = stub->AddEntries(&ctx);
  std::thread writer([&] {
    int64_t next[kLedgers] = {};
    for (int64_t i = 0;; ++i) {
      proto::AddRequest req;
      for (int k = 0; k < 20; ++k) {
        const uint64_t ledger =
            100 + static_cast<uint64_t>(i * 20 + k) % kLedgers;
        const int64_t entry = next[ledger - 100]++;
        const size_t size = 16 + rng() % 3000;
        *req.add_entries() = MakeAdd(ledger, entry, "key", size);
        absl::MutexLock l(&mu);
        sent.push_back({ledger, entry, size});
      }
      {
        absl::MutexLock l(&mu);
        auto room = [&] {
          return stop ||
                 static_cast<int64_t>(sent.size()) - acked_count < kWindow;
        };
        mu.AwaitWithTimeout(absl::Condition(&room), absl::Seconds(5));
      }
      if (!stream->Write(req)) break;
    }
  });
  proto::AddResponse resp;
  bool killed = false;
  while (stream->Read(&resp)) {
    absl::MutexLock l(&mu);
    for (const auto& r : resp.results()) {
      answers[{r.ledger_id(), r.entry_id()}] = r.status();
      ++acked_count;
    }
    if (!killed && acked_count >= kKillAfterAcks) {
      b->Kill();  // SIGKILL mid-stream: adds are still flowing
      killed = true;
    }
  }
  {
    absl::MutexLock l(&mu);
    stop = true;
  }
  ctx.TryCancel();
  writer.join();
  stream->Finish().IgnoreError();
  REQUIRE(killed);

  BK_REQUIRE_OK(b->Restart());
  stub = Connect(b->grpc_target());
  int64_t ok = 0, absent = 0, present_unacked = 0;
  for (const Sent& s : sent) {
    auto it = answers.find({s.ledger, s.entry});
    const bool acked = it != answers.end() && it->second == proto::BK_EOK;
    proto::ReadEntryResponse r = Read(stub.get(), s.ledger, s.entry);
    INFO("seed " << seed << " ledger " << s.ledger << " entry " << s.entry);
    if (acked) {
      REQUIRE(r.status() == proto::BK_EOK);
      ++ok;
    } else if (r.status() != proto::BK_EOK) {
      REQUIRE((r.status() == proto::BK_ENOENTRY ||
               r.status() == proto::BK_ENOLEDGER));
      ++absent;
      continue;
    } else {
      ++present_unacked;
    }
    auto d =
        entry::Decode(r.body(), entry::DigestType::kCrc32c, s.ledger, s.entry);
    REQUIRE(d.ok());
    REQUIRE(std::string(d->payload.data(), d->payload.size()) ==
            Payload(s.ledger, s.entry, s.size));
  }
  std::printf(
      "crash test: %lld sent, %lld acknowledged and intact, %lld "
      "unacknowledged but intact, %lld absent\n",
      static_cast<long long>(sent.size()), static_cast<long long>(ok),
      static_cast<long long>(present_unacked), static_cast<long long>(absent));
  CHECK(ok >= kKillAfterAcks);
}

// Builds one HTTP/2 frame.
std::string Frame(uint32_t length, uint8_t type, uint8_t flags, uint32_t stream,
                  const std::string& payload) {
  std::string f;
  f.push_back(static_cast<char>(length >> 16));
  f.push_back(static_cast<char>(length >> 8));
  f.push_back(static_cast<char>(length));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  f.push_back(static_cast<char>((stream >> 24) & 0x7f));
  f.push_back(static_cast<char>(stream >> 16));
  f.push_back(static_cast<char>(stream >> 8));
  f.push_back(static_cast<char>(stream));
  return f + payload;
}

bool ProcessAlive(pid_t pid) {
  int status;
  return waitpid(pid, &status, WNOHANG) == 0;
}

TEST_CASE("oversize and garbage input leave the bookie up and serving",
          "[integration][bookie]") {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto b = StartBookie(BookieOptions(dir, "bk-garbage", FreshZkUri("garbage"),
                                     {{"nettyMaxFrameSizeBytes", "65536"}}));
  auto stub = Connect(b->grpc_target());
  auto serving = [&] {
    INFO("seed " << seed);
    REQUIRE(ProcessAlive(b->pid()));
    CHECK(HttpGet(b->http_port(), "/health").status == 200);
    static int64_t e = 0;
    auto fresh = Connect(b->grpc_target());
    CHECK(AddOne(fresh.get(), MakeAdd(50, e)) == proto::BK_EOK);
    CHECK(ReadsBackIntact(fresh.get(), 50, e));
    ++e;
  };

  SECTION(
      "a message over the limit gets EBADREQ per entry; the stream goes "
      "on") {
    proto::AddRequest big, small;
    for (int e = 0; e < 100; ++e)
      *big.add_entries() = MakeAdd(51, e, "k", 1024);
    *small.add_entries() = MakeAdd(52, 0);
    grpc::Status status;
    auto out = AddBatches(stub.get(), {big, small}, &status);
    INFO(status.error_code() << " " << status.error_message());
    CHECK(status.ok());
    REQUIRE(out.size() == 101);
    for (int e = 0; e < 100; ++e) CHECK(out[{51, e}] == proto::BK_EBADREQ);
    CHECK(out[{52, 0}] == proto::BK_EOK);
    CHECK(Read(stub.get(), 51, 0).status() == proto::BK_ENOLEDGER);
    serving();
  }
  SECTION("a message over gRPC's hard limit ends that stream only") {
    proto::AddRequest huge;
    for (int e = 0; e < 40; ++e)
      *huge.add_entries() = MakeAdd(53, e, "k", 64 << 10);
    grpc::Status status;
    AddBatches(stub.get(), {huge}, &status);
    CHECK(status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
    serving();
  }
  SECTION("random bytes to the gRPC port") {
    for (int i = 0; i < 20; ++i) {
      std::string junk(1 + rng() % 8192, '\0');
      for (auto& c : junk) c = static_cast<char>(rng());
      SendRaw(b->grpc_port(), junk, 2000);
    }
    serving();
  }
  SECTION("malformed HTTP/2 to the gRPC port") {
    const std::string preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    const std::string settings = Frame(0, 0x4, 0, 0, "");
    std::vector<std::string> attacks = {
        // SETTINGS with a length that is not a multiple of 6.
        preface + Frame(5, 0x4, 0, 0, "abcde"),
        // HEADERS with garbage HPACK on stream 1.
        preface + settings + Frame(16, 0x1, 0x4, 1, std::string(16, '\xff')),
        // A frame announcing 16 MiB and then ending.
        preface + settings + Frame(0xffffff, 0x0, 0, 1, "short"),
        // DATA on a stream never opened, WINDOW_UPDATE of zero.
        preface + settings + Frame(4, 0x0, 0, 7, "data") +
            Frame(4, 0x8, 0, 0, std::string(4, '\0')),
        // Unknown frame types and a GOAWAY with a bogus last stream.
        preface + settings + Frame(3, 0x42, 0, 0, "xyz") +
            Frame(8, 0x7, 0, 0, std::string(8, '\x7f')),
        // A plain HTTP/1.1 request.
        "GET /bk.proto.Bookie/ReadEntry HTTP/1.1\r\nHost: x\r\n\r\n",
    };
    for (int i = 0; i < 10; ++i) {
      std::string junk(rng() % 2048, '\0');
      for (auto& c : junk) c = static_cast<char>(rng());
      attacks.push_back(preface + settings + junk);
    }
    for (const auto& a : attacks) SendRaw(b->grpc_port(), a, 2000);
    serving();
  }
  SECTION("garbage to the HTTP port") {
    std::vector<std::string> attacks = {
        "GARBAGE\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: " + std::string(100000, 'h') +
            "\r\n\r\n",
        "GET /" + std::string(50000, 'x') + " HTTP/1.1\r\n\r\n",
        "POST /ready HTTP/1.1\r\nContent-Length: 999999\r\n\r\nabc",
        "GET /ready HTTP/1.1\r\n",  // never finished
        "GET /nowhere HTTP/1.0\r\n\r\n",
    };
    for (int i = 0; i < 10; ++i) {
      std::string junk(1 + rng() % 4096, '\0');
      for (auto& c : junk) c = static_cast<char>(rng());
      attacks.push_back(junk);
    }
    for (const auto& a : attacks) SendRaw(b->http_port(), a, 2000);
    CHECK(HttpGet(b->http_port(), "/nowhere").status == 404);
    serving();
  }
}

}  // namespace
}  // namespace bk::it
