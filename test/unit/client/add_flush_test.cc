// The add stream's flush interval (ClientOptions::add_flush_interval): a
// connection starts a write of adds at most once per interval, so adds
// issued soon after a write wait and go together in one message; one
// issued after a quiet spell goes at once; a held write never strands its
// adds, not even when the client shuts down while it is held.

#include <catch2/catch.hpp>
#include <future>
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "client/client.h"
#include "test/unit/client/test_util.h"

namespace bk::client {
namespace {

using testing::AppendAll;
using testing::ExpectAllConfirmed;
using testing::FastOptions;
using testing::Get;
using testing::LocalBookies;
using testing::MakeClient;

CreateLedgerOptions OneBookie() {
  return {
      .ensemble_size = 1, .write_quorum = 1, .ack_quorum = 1, .password = "p"};
}

// Options whose adds do not time out while a write is held.
ClientOptions WithInterval(const LocalBookies& bookies,
                           absl::Duration interval) {
  ClientOptions o = FastOptions(bookies);
  o.add_flush_interval = interval;
  o.add_entry_timeout = absl::Seconds(30);
  return o;
}

// A writer on the one bookie whose stream has written once: entry 0,
// confirmed.
std::unique_ptr<LedgerWriter> WroteOnce(Client* client) {
  auto w = client->CreateLedger(OneBookie());
  REQUIRE(w.ok());
  auto first = AppendAll(w->get(), 0, 0);
  ExpectAllConfirmed(first, 0);
  return std::move(*w);
}

// The add messages all bookies received.
int64_t Messages(LocalBookies& bookies) {
  int64_t n = 0;
  for (int i = 0; i < bookies.size(); ++i) {
    n += bookies.faults(i)->add_batches.load();
  }
  return n;
}

TEST_CASE("adds issued within the flush interval of a write go in one message",
          "[client]") {
  LocalBookies bookies(1);
  auto client = MakeClient(WithInterval(bookies, absl::Seconds(1)));
  // The first add finds no write for a second: it goes at once.
  auto w = WroteOnce(client.get());
  REQUIRE(Messages(bookies) == 1);
  // Twenty more at once, well within the second: held, then one message.
  auto rest = AppendAll(w.get(), 1, 20);
  ExpectAllConfirmed(rest, 1);
  CHECK(Messages(bookies) == 2);
}

TEST_CASE("without a flush interval the next add goes at once", "[client]") {
  LocalBookies bookies(1);
  auto client = MakeClient(WithInterval(bookies, absl::ZeroDuration()));
  auto w = WroteOnce(client.get());
  auto rest = AppendAll(w.get(), 1, 20);
  ExpectAllConfirmed(rest, 1);
  // Entry 1 went alone as soon as it was issued, the rest after it.
  CHECK(Messages(bookies) >= 3);
}

TEST_CASE("a client shut down while a write is held answers its adds",
          "[client]") {
  LocalBookies bookies(1);
  auto client = MakeClient(WithInterval(bookies, absl::Seconds(1)));
  auto w = WroteOnce(client.get());
  auto held = AppendAll(w.get(), 1, 5);
  // Shut down with the write held: each add is answered (confirmed, or
  // failed with the stream) rather than left waiting.
  w.reset();
  client.reset();
  for (auto& f : held) {
    auto r = Get(f);
    INFO(r.status().ToString());
    CHECK(r.status().code() != absl::StatusCode::kDeadlineExceeded);
  }
}

}  // namespace
}  // namespace bk::client
