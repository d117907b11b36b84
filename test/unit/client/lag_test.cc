// addEntryLagTimeoutMs: the one silent bookie of a write set whose other
// members answered is failed for the ledger before the add timeout.
// The clock is the test's (ClockEnv), so "an hour" passes on its word.

#include <catch2/catch.hpp>

#include "test/support/clock_env.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

constexpr absl::Duration kLag = absl::Hours(1);
constexpr absl::Duration kAddTimeout = absl::Hours(1000);

// Moves the clock on by `step` until `f` is ready, at most `steps` times;
// returns the steps taken (steps + 1 if it never became ready).
int AdvanceUntilReady(bk::testing::ClockEnv& clock,
                      std::future<absl::StatusOr<int64_t>>& f,
                      absl::Duration step, int steps) {
  for (int i = 0; i <= steps; ++i) {
    if (f.wait_for(std::chrono::milliseconds(100)) ==
        std::future_status::ready) {
      return i;
    }
    if (i < steps) clock.Advance(step);
  }
  return steps + 1;
}

ClientOptions LagOptions(const LocalBookies& bookies,
                         bk::testing::ClockEnv* clock, absl::Duration lag) {
  ClientOptions o = FastOptions(bookies);
  o.env = clock;
  o.add_entry_timeout = kAddTimeout;
  o.add_entry_lag_timeout = lag;
  return o;
}

TEST_CASE(
    "a bookie lagging the rest of its write quorum by addEntryLagTimeoutMs "
    "is replaced long before the add timeout",
    "[client]") {
  LocalBookies bookies(4);
  bk::testing::ClockEnv clock(Env::Default());
  auto client = MakeClient(LagOptions(bookies, &clock, kLag));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 3,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  const std::string victim = md0.segments(0).bookies(1);
  bookies.faults(bookies.IndexOf(victim))->drop_adds_from = 5;
  auto fs = AppendAll(w->get(), 0, 29);
  for (int e = 0; e < 5; ++e) REQUIRE(Get(fs[e]).ok());
  // Each step is one lag; the add timeout is a thousand of them away.
  const int steps = AdvanceUntilReady(clock, fs.back(), kLag, 20);
  INFO(steps << " lag periods");
  REQUIRE(steps <= 20);
  for (int e = 5; e < 30; ++e) {
    auto r = Get(fs[e]);
    REQUIRE(r.ok());
    CHECK(*r == e);
  }
  CHECK(Metric(*client, "bk_client_lagging_bookies_total") == 1);
  REQUIRE((*w)->Close().ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  REQUIRE(md.segments_size() == 2);
  CHECK(md.segments(1).first_entry_id() == 5);
  for (const auto& b : md.segments(1).bookies()) CHECK(b != victim);
  auto r = client->OpenLedger((*w)->ledger_id(), "p");
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 29);
  bookies.ReleaseAllSwallowed();
}

TEST_CASE(
    "no bookie is failed for lag when two of the write set are silent or "
    "addEntryLagTimeoutMs is 0, and the add timeout still replaces them",
    "[client]") {
  struct Case {
    const char* name;
    int silent;  // members of the first ensemble that swallow adds
    absl::Duration lag;
  };
  const Case c = GENERATE(Case{"two silent", 2, kLag},
                          Case{"disabled", 1, absl::ZeroDuration()});
  INFO(c.name);
  LocalBookies bookies(5);
  bk::testing::ClockEnv clock(Env::Default());
  auto client = MakeClient(LagOptions(bookies, &clock, c.lag));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 3,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  for (int i = 0; i < c.silent; ++i) {
    bookies.faults(bookies.IndexOf(md0.segments(0).bookies(i)))
        ->drop_adds_from = 0;
  }
  auto fs = AppendAll(w->get(), 0, 9);
  // Twenty lags pass, each over 100 ms of real time (the maintenance tick
  // runs every 100 ms): no add is confirmed and nothing is failed.
  CHECK(AdvanceUntilReady(clock, fs.front(), kLag, 20) == 21);
  CHECK(Metric(*client, "bk_client_ensemble_changes_total") == 0);
  CHECK(ReadMetadata(bookies, (*w)->ledger_id()).segments_size() == 1);
  // The add timeout: the silent ones are replaced, as ever, and not
  // counted as lagging.
  clock.Advance(kAddTimeout);
  for (int e = 0; e < 10; ++e) {
    auto r = Get(fs[e]);
    REQUIRE(r.ok());
    CHECK(*r == e);
  }
  CHECK(Metric(*client, "bk_client_ensemble_changes_total") >= 1);
  CHECK(Metric(*client, "bk_client_lagging_bookies_total") == 0);
  REQUIRE((*w)->Close().ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  for (int i = 0; i < c.silent; ++i) {
    for (const auto& b : md.segments(md.segments_size() - 1).bookies()) {
      CHECK(b != md0.segments(0).bookies(i));
    }
  }
  bookies.ReleaseAllSwallowed();
}

}  // namespace
}  // namespace bk::client::testing
