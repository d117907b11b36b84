// Re-registration after a ZooKeeper session expiry, with a real bookie and
// a real ZooKeeper: when another session holds the bookie's id at that
// moment, the bookie is not registered and says so (/ready 503, a failure
// counted), and retries until it is registered again.

#include <signal.h>

#include "absl/strings/match.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;

TEST_CASE(
    "a re-registration refused after session expiry fails /ready, is "
    "counted and retried until it succeeds",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("rereg");
  auto md = OpenMetadata(uri);
  const std::string id = "bk-rereg";
  auto b = StartBookie(BookieOptions(dir, id, uri, {{"zkTimeout", "1000"}}));
  REQUIRE(Registration(md.get(), id) == Reg::kWritable);

  // Paused past its session: ZooKeeper expires it and the registration
  // goes. Meanwhile another session takes the id.
  b->Signal(SIGSTOP);
  struct Resume {
    BookieProcess* b;
    ~Resume() { b->Signal(SIGCONT); }
  } resume{b.get()};
  REQUIRE(PollUntil([&] { return Registration(md.get(), id) == Reg::kAbsent; },
                    absl::Seconds(30)));
  proto::BookieServiceInfo squatter;
  squatter.set_bookie_id(id);
  squatter.set_grpc_endpoint("127.0.0.1:1");
  BK_REQUIRE_OK(md->RegisterBookie(squatter));
  b->Signal(SIGCONT);

  // The bookie's new session cannot register: it must not claim it is.
  bk::testing::HttpReply ready;
  const bool refused = PollUntil(
      [&] {
        ready = HttpGet(b->http_port(), "/ready");
        return ready.status == 503 &&
               MetricValue(b->http_port(),
                           "bookie_registration_failures_total") >= 1;
      },
      absl::Seconds(30));
  INFO("/ready: " << ready.status << " " << ready.body);
  CHECK(refused);
  CHECK(MetricValue(b->http_port(), "bookie_registered") == 0);

  // The id comes free: the bookie's retries register it.
  BK_REQUIRE_OK(md->UnregisterBookie(id));
  const bool back = PollUntil(
      [&] {
        auto set = md->ListBookies();
        if (!set.ok()) return false;
        for (const auto& w : set->writable) {
          if (w.bookie_id() == id && w.grpc_endpoint() == b->grpc_target())
            return HttpGet(b->http_port(), "/ready").status == 200;
        }
        return false;
      },
      absl::Seconds(30));
  CHECK(back);
  CHECK(MetricValue(b->http_port(), "bookie_registered") == 1);
}

}  // namespace
}  // namespace bk::it
