// Lifetime of the client's bookie connections (BookieClient, BookiePool):
// when a connection is destroyed, gRPC must hold nothing of it any more.
//
// Why it matters: a ClientContext or a callback's capture that outlives the
// connection on a gRPC thread keeps a reference to the gRPC channel; when
// it is the process's last channel, ~Channel then runs on that thread and
// frees the completion queue the thread is serving ("double free or
// corruption" in grpc_cq_internal_unref, seen when Clients were destroyed).
// The tests make the gRPC thread slow at exactly that point (a capture whose
// destructor sleeps) so that the interleaving happens on every run.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "client/client_options.h"
#include "client/internal/bookie_client.h"
#include "client/internal/client_context.h"
#include "client/internal/cluster_view.h"
#include "test/unit/client/test_util.h"

namespace bk::client::internal {
namespace {

// A loopback port bound for as long as the object lives. Not listening,
// connections to it are refused. Listening, the kernel accepts them and
// nobody ever says a word: a connection attempt waits for the HTTP/2
// handshake until gRPC gives up on it.
class LoopbackPort {
 public:
  explicit LoopbackPort(bool listening = false) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    if (listening) REQUIRE(listen(fd_, 16) == 0);
    socklen_t len = sizeof(a);
    REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port_ = ntohs(a.sin_port);
  }
  ~LoopbackPort() { close(fd_); }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Captured by a callback. When destroyed (the last, not moved-from, copy),
// it first lingers, as a preempted gRPC thread would, then records whether
// the connection was already gone (it must not be) and that it finished.
class Witness {
 public:
  Witness(const std::atomic<bool>* connection_gone, std::atomic<int>* late,
          std::atomic<int>* finished)
      : gone_(connection_gone), late_(late), finished_(finished) {}
  Witness(Witness&& o) noexcept
      : gone_(o.gone_), late_(o.late_), finished_(o.finished_) {
    o.gone_ = nullptr;
  }
  Witness& operator=(Witness&&) = delete;
  ~Witness() {
    if (gone_ == nullptr) return;
    absl::SleepFor(absl::Milliseconds(300));  // the injected slowness
    if (gone_->load()) late_->fetch_add(1);
    finished_->fetch_add(1);
  }

 private:
  const std::atomic<bool>* gone_;
  std::atomic<int>* late_;
  std::atomic<int>* finished_;
};

TEST_CASE(
    "a connection's destructor returns only after its callbacks and what "
    "they hold are gone",
    "[client]") {
  LoopbackPort port;
  std::atomic<bool> gone{false};
  std::atomic<int> late{0};
  std::atomic<int> finished{0};  // witnesses destroyed
  absl::Notification info_answered, add_answered;
  absl::StatusCode info_code = absl::StatusCode::kOk;
  absl::StatusCode add_code = absl::StatusCode::kOk;
  auto conn =
      std::make_unique<BookieClient>("b0", port.endpoint(), ChannelConfig{});
  conn->GetBookieInfo(
      0, absl::Seconds(10),
      [w = Witness(&gone, &late, &finished), &info_code,
       &info_answered](absl::StatusOr<proto::GetBookieInfoResponse> r) {
        info_code = r.status().code();
        info_answered.Notify();
      });
  conn->Add(1, 0, "key", 0, "body",
            [w = Witness(&gone, &late, &finished), &add_code,
             &add_answered](absl::Status s) {
              add_code = s.code();
              add_answered.Notify();
            });
  REQUIRE(info_answered.WaitForNotificationWithTimeout(absl::Seconds(10)));
  REQUIRE(add_answered.WaitForNotificationWithTimeout(absl::Seconds(10)));
  CHECK(info_code == absl::StatusCode::kUnavailable);
  CHECK(add_code == absl::StatusCode::kUnavailable);
  // Both callbacks have run; their captures are being destroyed on gRPC
  // threads (slowly). The destructor must wait for that.
  conn.reset();
  gone = true;
  // Both witnesses finish (a late one after counting itself late).
  REQUIRE(bk::testing::PollUntil([&] { return finished.load() == 2; },
                                 absl::Seconds(10)));
  CHECK(late.load() == 0);
}

// gRPC's connect timeout is the channel's "minimum reconnect backoff". At
// 100 ms a bookie slow to complete a handshake (a loaded machine, a round
// trip across regions) failed its calls, and enough of them quarantined it.
TEST_CASE(
    "a call to a bookie that does not answer a new connection fails only "
    "after the connection attempt has had a second",
    "[client]") {
  LoopbackPort port(/*listening=*/true);
  BookieClient conn("b0", port.endpoint(), ChannelConfig{});
  absl::Notification answered;
  absl::Status status;
  const absl::Time start = absl::Now();
  absl::Time end;
  conn.GetBookieInfo(0, absl::Seconds(30),
                     [&](absl::StatusOr<proto::GetBookieInfoResponse> r) {
                       status = r.status();
                       end = absl::Now();
                       answered.Notify();
                     });
  REQUIRE(answered.WaitForNotificationWithTimeout(absl::Seconds(30)));
  INFO(status.ToString() << " after " << absl::FormatDuration(end - start));
  // Failed by the connection attempt's timeout, not the call's deadline.
  CHECK(absl::IsUnavailable(status));
  // A lower bound only: a busy machine makes it later, never sooner.
  CHECK(end - start >= absl::Milliseconds(900));
}

TEST_CASE("a shut-down connection refuses calls inline", "[client]") {
  LoopbackPort port;
  BookieClient conn("b0", port.endpoint(), ChannelConfig{});
  conn.Shutdown();
  bool info_done = false, add_done = false;
  conn.ReadLac(1, absl::Seconds(10),
               [&](absl::StatusOr<proto::ReadLacResponse> r) {
                 CHECK(absl::IsCancelled(r.status()));
                 info_done = true;
               });
  conn.Add(1, 0, "key", 0, "body", [&](absl::Status s) {
    CHECK(absl::IsCancelled(s));
    add_done = true;
  });
  CHECK(info_done);
  CHECK(add_done);
  conn.Shutdown();  // idempotent
}

TEST_CASE(
    "a connection held past the pool's Close is shut down there but "
    "destroyed only with the pool",
    "[client]") {
  LoopbackPort port;
  ClientOptions options;
  ClusterView cluster(options, /*seed=*/1, /*probe=*/nullptr);
  metadata::BookieSet set;
  proto::BookieServiceInfo b;
  b.set_bookie_id("b0");
  b.set_grpc_endpoint(port.endpoint());
  b.set_network_location("/r/rack0");
  set.writable.push_back(b);
  cluster.SetBookies(set);

  auto pool = std::make_unique<BookiePool>(ChannelConfig{}, &cluster);
  std::shared_ptr<BookieClient> held = pool->Get("b0");
  REQUIRE(held != nullptr);
  pool->Close();
  CHECK(pool->Get("b0") == nullptr);
  // Shut down: calls fail at once, inline.
  bool refused = false;
  held->GetBookieInfo(0, absl::Seconds(10),
                      [&](absl::StatusOr<proto::GetBookieInfoResponse> r) {
                        refused = absl::IsCancelled(r.status());
                      });
  CHECK(refused);
  // An op dropping its reference after Close (possibly on a gRPC thread)
  // must not be the one destroying the connection: the pool still holds it.
  CHECK(held.use_count() == 2);
  std::weak_ptr<BookieClient> weak = held;
  held.reset();
  CHECK(!weak.expired());
  pool.reset();
  CHECK(weak.expired());
}

// Registers `ids` as writable bookies, each in a rack of its own.
void SetBookiesOneRackEach(ClusterView& cluster,
                           std::initializer_list<const char*> ids) {
  metadata::BookieSet set;
  for (const char* id : ids) {
    proto::BookieServiceInfo b;
    b.set_bookie_id(id);
    b.set_grpc_endpoint("127.0.0.1:1");
    b.set_network_location(absl::StrCat("/r/rack-", id));
    set.writable.push_back(b);
  }
  cluster.SetBookies(set);
}

TEST_CASE(
    "adaptive placement never takes a bookie reporting a saturated journal "
    "while others are free, whether or not this client wrote to them",
    "[client]") {
  // Three racks, one bookie each. "hot" reports a saturated journal; the
  // client has written to "a" and seen 3 ms adds there, never to "b".
  ClientOptions options;
  options.placement.weighting = placement::Weighting::kAdaptive;
  const uint64_t seed = 20261130;
  INFO("seed " << seed);
  ClusterView cluster(options, seed, /*probe=*/nullptr);
  SetBookiesOneRackEach(cluster, {"hot", "a", "b"});
  const absl::Time now = absl::Now();
  for (const char* id : {"hot", "a", "b"}) {
    proto::GetBookieInfoResponse info;
    info.set_status(proto::BK_EOK);
    info.set_free_disk_space(int64_t{1} << 40);
    info.set_journal_io_util(std::string(id) == "hot" ? 100 : 5);
    info.set_write_bytes_per_second(1 << 20);
    cluster.OnBookieInfo(id, info, now);
  }
  cluster.OnAddAnswered("a", absl::Milliseconds(3));
  cluster.Tick(now, {{"a", 2}});
  std::map<std::string, int> chosen;
  const int draws = 400;
  for (int i = 0; i < draws; ++i) {
    placement::LedgerHints hints;
    if (i % 2 == 1) hints.expected_write_bytes_per_second = 1 << 20;
    auto p = cluster.NewEnsemble(1, 1, 1, hints);
    REQUIRE(p.ok());
    ++chosen[p->ensemble[0]];
  }
  INFO("hot " << chosen["hot"] << ", a " << chosen["a"] << ", b "
              << chosen["b"]);
  CHECK(chosen["hot"] == 0);
  // The bookie never written to is not shunned for being unknown.
  CHECK(chosen["b"] > draws / 4);
  CHECK(chosen["a"] > draws / 4);
}

TEST_CASE(
    "a replacement's probe candidates leave out the ensemble and the "
    "excluded bookies, and the probed answers decide the choice",
    "[client]") {
  ClientOptions options;
  options.placement.weighting = placement::Weighting::kAdaptive;
  options.placement.adaptive.probe_candidates = 2;
  const uint64_t seed = 20261202;
  INFO("seed " << seed);
  ClusterView cluster(options, seed, /*probe=*/nullptr);
  metadata::BookieSet set;
  for (const char* id : {"e0", "e1", "dead", "c0", "c1", "c2"}) {
    proto::BookieServiceInfo b;
    b.set_bookie_id(id);
    b.set_grpc_endpoint("127.0.0.1:1");
    b.set_network_location("/r/rack0");
    set.writable.push_back(b);
  }
  cluster.SetBookies(set);
  const absl::Time now = absl::Now();
  proto::GetBookieInfoResponse idle;
  idle.set_status(proto::BK_EOK);
  idle.set_free_disk_space(int64_t{1} << 40);
  idle.set_journal_io_util(5);
  idle.set_write_bytes_per_second(1 << 20);
  for (const char* id : {"e0", "e1", "dead", "c0", "c1", "c2"}) {
    cluster.OnBookieInfo(id, idle, now);
  }
  const std::vector<std::string> ensemble = {"e0", "e1", "dead"};
  std::map<std::string, int> asked;
  for (int i = 0; i < 200; ++i) {
    const std::vector<std::string> c =
        cluster.ReplaceProbeCandidates(ensemble, 3, {"c2"}, {});
    REQUIRE(c.size() == 2);  // D x 1 slot, from c0 and c1 only
    for (const auto& id : c) ++asked[id];
  }
  CHECK(asked.size() == 2);
  CHECK(asked["c0"] == 200);
  CHECK(asked["c1"] == 200);

  // Fresh answers: c0 now reports a saturated journal, c1 an idle one. The
  // replacement follows them, whatever the stale view said.
  proto::GetBookieInfoResponse saturated = idle;
  saturated.set_journal_io_util(100);
  int to_c1 = 0;
  for (int i = 0; i < 50; ++i) {
    const absl::Time at = now + absl::Milliseconds(i + 1);
    std::vector<ProbeAnswer> answers = {{"c0", saturated, at},
                                        {"c1", idle, at}};
    auto p = cluster.ReplaceBookie(ensemble, 2, 3, 2, {"c2"}, {}, answers);
    REQUIRE(p.ok());
    CHECK(p->ensemble[0] == "e0");
    CHECK(p->ensemble[1] == "e1");
    to_c1 += p->ensemble[2] == "c1" ? 1 : 0;
  }
  CHECK(to_c1 == 50);
}

TEST_CASE(
    "a ledger this client closed leaves room its next ledger takes, when "
    "the client polls every second",
    "[client]") {
  ClientOptions options;
  options.placement.weighting = placement::Weighting::kAdaptive;
  const uint64_t seed = 20261203;
  INFO("seed " << seed);
  ClusterView cluster(options, seed, /*probe=*/nullptr);
  SetBookiesOneRackEach(cluster, {"x", "y", "z"});
  // Polled a second apart, the last just now: x writes 30 MiB/s (a 25 MiB/s
  // ledger of this client's among them), y and z 10.
  const absl::Time now = absl::Now();
  for (absl::Time at : {now - absl::Seconds(1), now}) {
    for (const char* id : {"x", "y", "z"}) {
      proto::GetBookieInfoResponse info;
      info.set_status(proto::BK_EOK);
      info.set_free_disk_space(int64_t{1} << 40);
      info.set_journal_io_util(10);
      info.set_write_bytes_per_second((std::string(id) == "x" ? 30 : 10) << 20);
      cluster.OnBookieInfo(id, info, at);
    }
  }
  placement::LedgerHints hints;
  hints.expected_write_bytes_per_second = 25 << 20;
  auto before = cluster.NewEnsemble(1, 1, 1, hints);
  REQUIRE(before.ok());
  CHECK(before->ensemble[0] != "x");
  // The ledger on x is closed (a roll): x is now the least loaded, at
  // 5 MiB/s, before any report says so.
  cluster.OnLedgerClosed({"x"}, 1, hints);
  auto after = cluster.NewEnsemble(1, 1, 1, hints);
  REQUIRE(after.ok());
  CHECK(after->ensemble[0] == "x");
}

}  // namespace
}  // namespace bk::client::internal
