// Failures on the write path: a silent or stopped bookie under AQ < WQ,
// ensemble changes mid-stream, fencing of a writer still running.

#include <catch2/catch.hpp>

#include "absl/synchronization/mutex.h"
#include "test/support/clock_env.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

TEST_CASE("AQ < WQ: a silent bookie does not hold up confirmations",
          "[client]") {
  LocalBookies bookies(3);
  ClientOptions o = FastOptions(bookies);
  o.add_entry_timeout = absl::Seconds(60);  // silence is not a timeout here
  auto client = MakeClient(o);
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  bookies.faults(2)->drop_adds_from = 0;  // b2 never answers
  auto fs = AppendAll(w->get(), 0, 99);
  ExpectAllConfirmed(fs, 0);
  CHECK(ReadMetadata(bookies, (*w)->ledger_id()).segments_size() == 1);
  REQUIRE((*w)->Close().ok());
  auto r = client->OpenLedger((*w)->ledger_id(), "p");
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 99);
  bookies.ReleaseAllSwallowed();
}

// The test's clock, and an add timeout of an hour that passes only on the
// test's word.
ClientOptions HourTimeoutOptions(const LocalBookies& bookies,
                                 bk::testing::ClockEnv* clock) {
  ClientOptions o = FastOptions(bookies);
  o.env = clock;
  o.add_entry_timeout = absl::Hours(1);
  return o;
}

TEST_CASE(
    "AQ < WQ: a bookie silent past addEntryTimeoutSec is replaced though "
    "every entry was confirmed without it",
    "[client]") {
  LocalBookies bookies(4);
  bk::testing::ClockEnv clock(Env::Default());
  auto client = MakeClient(HourTimeoutOptions(bookies, &clock));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  const std::string silent = md0.segments(0).bookies(2);
  bookies.faults(bookies.IndexOf(silent))->drop_adds_from = 0;
  auto fs = AppendAll(w->get(), 0, 19);
  ExpectAllConfirmed(fs, 0);  // by the other two
  CHECK(Metric(*client, "bk_client_ensemble_changes_total") == 0);
  // Without the timeout the silent bookie would keep every later entry one
  // replica short for good.
  clock.Advance(absl::Hours(1));
  REQUIRE(PollUntil([&] {
    return Metric(*client, "bk_client_ensemble_changes_total") >= 1;
  }));
  auto more = AppendAll(w->get(), 20, 39);
  ExpectAllConfirmed(more, 20);
  REQUIRE((*w)->Close().ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  REQUIRE(md.segments_size() == 2);
  CHECK(md.segments(1).first_entry_id() == 20);
  for (const auto& b : md.segments(1).bookies()) CHECK(b != silent);
  // The new segment's entries reach all three of its bookies (the third
  // may answer after the close: AQ 2).
  for (const auto& b : md.segments(1).bookies()) {
    INFO(b);
    CHECK(PollUntil([&] {
      for (int e = 20; e < 40; ++e) {
        if (!bookies.store(bookies.IndexOf(b))
                 ->ReadEntry((*w)->ledger_id(), e)
                 .ok()) {
          return false;
        }
      }
      return true;
    }));
  }
  bookies.ReleaseAllSwallowed();
}

TEST_CASE("AQ < WQ: a stopped bookie with no replacement leaves writes going",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  auto before = AppendAll(w->get(), 0, 49);
  ExpectAllConfirmed(before, 0);
  bookies.Stop(1);
  auto after = AppendAll(w->get(), 50, 99);
  ExpectAllConfirmed(after, 50);
  REQUIRE((*w)->Close().ok());
  auto r = client->OpenLedger((*w)->ledger_id(), "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 99);
}

TEST_CASE("an ensemble change mid-stream keeps every confirmed entry in order",
          "[client]") {
  LocalBookies bookies(4);
  auto client = MakeClient(FastOptions(bookies));
  // AQ = WQ: an entry whose write set holds the failed bookie can only be
  // confirmed after it is re-sent to the replacement.
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const int64_t id = (*w)->ledger_id();
  auto first = AppendAll(w->get(), 0, 59);
  ExpectAllConfirmed(first, 0);
  const auto md0 = ReadMetadata(bookies, id);
  const std::string victim = md0.segments(0).bookies(1);
  bookies.faults(bookies.IndexOf(victim))->fail_adds_from = 60;

  absl::Mutex mu;
  std::vector<int64_t> order;
  for (int e = 60; e < 300; ++e) {
    // No Catch assertions off the test thread: record, check below.
    (*w)->Append(Payload(e), [&](absl::StatusOr<int64_t> r) {
      absl::MutexLock l(&mu);
      order.push_back(r.ok() ? *r : -100);
    });
  }
  REQUIRE(PollUntil([&] {
    absl::MutexLock l(&mu);
    return order.size() == 240;
  }));
  for (int e = 60; e < 300; ++e) REQUIRE(order[e - 60] == e);
  REQUIRE((*w)->Close().ok());

  const auto md = ReadMetadata(bookies, id);
  REQUIRE(md.segments_size() == 2);
  const auto& last = md.segments(1);
  CHECK(last.first_entry_id() == 60);  // LAC + 1 when the bookie failed
  for (const auto& b : last.bookies()) CHECK(b != victim);
  CHECK(md.placement_notes().size() == 4);  // the replacement has a note
  CHECK(Metric(*client, "bk_client_ensemble_changes_total") >= 1);

  auto r = client->OpenLedger(id, "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 299);
}

TEST_CASE(
    "a bookie failing before any entry is confirmed is replaced in the "
    "first segment",
    "[client]") {
  LocalBookies bookies(4);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  const std::string victim = md0.segments(0).bookies(0);
  bookies.faults(bookies.IndexOf(victim))->fail_adds_from = 0;
  auto fs = AppendAll(w->get(), 0, 99);
  ExpectAllConfirmed(fs, 0);
  REQUIRE((*w)->Close().ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  // LAC + 1 was 0: the first segment's ensemble is replaced in place.
  REQUIRE(md.segments_size() == 1);
  for (const auto& b : md.segments(0).bookies()) CHECK(b != victim);
  auto r = client->OpenLedger((*w)->ledger_id(), "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 99);
}

TEST_CASE("a bookie stopped mid-stream is replaced with no entry lost",
          "[client]") {
  LocalBookies bookies(4);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  auto first = AppendAll(w->get(), 0, 199);
  bookies.Stop(bookies.IndexOf(md0.segments(0).bookies(0)));
  auto second = AppendAll(w->get(), 200, 399);
  ExpectAllConfirmed(first, 0);
  ExpectAllConfirmed(second, 200);
  REQUIRE((*w)->Close().ok());
  auto r = client->OpenLedger((*w)->ledger_id(), "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 399);
}

TEST_CASE("recovery by another client fences a writer that is still running",
          "[client]") {
  LocalBookies bookies(3);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(FastOptions(bookies));
  auto w = writer_client->CreateLedger({.ensemble_size = 3,
                                        .write_quorum = 3,
                                        .ack_quorum = 2,
                                        .password = "p"});
  REQUIRE(w.ok());
  auto fs = AppendAll(w->get(), 0, 19);
  ExpectAllConfirmed(fs, 0);

  auto r = reader_client->OpenLedger((*w)->ledger_id(), "p", /*recover=*/true);
  REQUIRE(r.ok());
  CHECK((*r)->state() == LedgerState::kClosed);
  CHECK((*r)->LastAddConfirmed() == 19);
  ExpectEntries(r->get(), 0, 19);

  // The old writer goes on appending: refused, and it stops.
  auto late = (*w)->Append(Payload(20));
  auto res = Get(late);
  INFO(res.status().ToString());
  CHECK(absl::IsFailedPrecondition(res.status()));
  CHECK(absl::IsFailedPrecondition((*w)->Close()));
  // The ledger stays closed at 19.
  CHECK(ReadMetadata(bookies, (*w)->ledger_id()).last_entry_id() == 19);
}

TEST_CASE(
    "an add unanswered past addEntryTimeoutSec replaces the silent bookie",
    "[client]") {
  LocalBookies bookies(4);
  bk::testing::ClockEnv clock(Env::Default());
  auto client = MakeClient(HourTimeoutOptions(bookies, &clock));
  // AQ = WQ: nothing is confirmed until the silent bookie is replaced.
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 3,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  const std::string victim = md0.segments(0).bookies(2);
  bookies.faults(bookies.IndexOf(victim))->drop_adds_from = 5;
  auto fs = AppendAll(w->get(), 0, 29);
  clock.Advance(absl::Hours(1));  // every add was sent before this
  ExpectAllConfirmed(fs, 0);
  REQUIRE((*w)->Close().ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  REQUIRE(md.segments_size() == 2);
  CHECK(md.segments(1).first_entry_id() == 5);
  for (const auto& b : md.segments(1).bookies()) CHECK(b != victim);
  bookies.ReleaseAllSwallowed();
}

TEST_CASE("a ledger closed in the metadata store stops its writer",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.password = "p"});
  REQUIRE(w.ok());
  auto f = (*w)->Append(Payload(0));
  REQUIRE(Get(f).ok());
  auto store = metadata::Open(bookies.metadata_uri());
  REQUIRE(store.ok());
  auto md = (*store)->ReadLedger((*w)->ledger_id());
  REQUIRE(md.ok());
  md->value.set_state(proto::CLOSED);
  md->value.set_last_entry_id(0);
  REQUIRE((*store)
              ->CompareAndSetLedger((*w)->ledger_id(), md->value, md->version)
              .ok());
  REQUIRE(PollUntil([&] {
    auto late = (*w)->Append("late");
    return absl::IsFailedPrecondition(Get(late).status());
  }));
  CHECK(absl::IsFailedPrecondition((*w)->Close()));
}

}  // namespace
}  // namespace bk::client::testing
