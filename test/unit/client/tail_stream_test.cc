// LedgerReader::Tail: entries pushed by the bookies' TailEntries streams
// while the reader has caught up, and the long-poll path when streams are
// off, end, or their bookie goes away.

#include <catch2/catch.hpp>
#include <cmath>
#include <future>

#include "client/internal/tail_iterator.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

using internal::TailIteratorImpl;

// Takes entries first..last from the tail, in order, with their payloads.
void ExpectTail(TailIterator* tail, int64_t first, int64_t last) {
  for (int64_t e = first; e <= last; ++e) {
    auto got = tail->Next(absl::Seconds(30));
    INFO("entry " << e << ": " << got.status().ToString());
    REQUIRE(got.ok());
    REQUIRE(got->entry_id == e);
    REQUIRE(got->payload == Payload(e));
  }
}

// Options under which no stream is given up for being slow: every entry
// the tests expect pushed is pushed, however loaded the machine.
ClientOptions PatientReader(const LocalBookies& bookies, bool streams) {
  ClientOptions o = FastOptions(bookies);
  o.speculative_read_timeout = absl::Seconds(20);
  o.read_entry_timeout = absl::Seconds(20);
  o.tail_stream_enabled = streams;
  return o;
}

TEST_CASE(
    "a caught-up tail takes each confirmed entry from the bookies' streams, "
    "and long-polls for them with streams off",
    "[client]") {
  LocalBookies bookies(3);
  auto writer_client = MakeClient(FastOptions(bookies));
  for (const bool streams : {true, false}) {
    for (const int wq : {2, 3}) {
      INFO("E3 WQ" << wq << " streams " << streams);
      auto reader_client = MakeClient(PatientReader(bookies, streams));
      auto w = writer_client->CreateLedger({.ensemble_size = 3,
                                            .write_quorum = wq,
                                            .ack_quorum = 2,
                                            .password = "p"});
      REQUIRE(w.ok());
      AppendConfirmed(w->get(), 0, 9);
      auto r = reader_client->OpenLedger((*w)->ledger_id(), "p", false);
      REQUIRE(r.ok());
      REQUIRE((*r)->ReadLac().ok());
      const int64_t lac = (*r)->LastAddConfirmed();
      REQUIRE(lac >= 8);
      auto tail = (*r)->Tail(0);
      auto* impl = dynamic_cast<TailIteratorImpl*>(tail.get());
      REQUIRE(impl != nullptr);
      ExpectTail(tail.get(), 0, lac);  // behind: ranges
      CHECK(impl->entries_pushed() == 0);
      // Caught up: nothing more is confirmed yet.
      auto none = tail->Next(absl::Milliseconds(50));
      CHECK(absl::IsDeadlineExceeded(none.status()));
      CHECK(impl->generations() == (streams ? 1u : 0u));
      // Entry 29 carries LAC 28: entries lac + 1..28 are confirmed.
      AppendConfirmed(w->get(), 10, 29);
      ExpectTail(tail.get(), lac + 1, 28);
      CHECK(impl->entries_pushed() == (streams ? 28 - lac : 0));
      CHECK(impl->generations() == (streams ? 1u : 0u));
      CHECK((*r)->LastAddConfirmed() >= 28);
      // The writer closes: the last entry comes from the close, then the
      // end.
      REQUIRE((*w)->Close().ok());
      ExpectTail(tail.get(), 29, 29);
      auto end = tail->Next(absl::Seconds(30));
      CHECK(absl::IsOutOfRange(end.status()));
    }
  }
}

TEST_CASE(
    "a tail reads by long polls from bookies that answer TailEntries "
    "UNIMPLEMENTED, retrying streams only after a growing back-off",
    "[client]") {
  // As bookies that predate TailEntries answer (tailEntriesEnabled=false).
  bookie::ServiceOptions old_bookies;
  old_bookies.tail_entries = false;
  LocalBookies bookies(3, old_bookies);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(PatientReader(bookies, true));
  auto w = writer_client->CreateLedger({.ensemble_size = 3,
                                        .write_quorum = 2,
                                        .ack_quorum = 2,
                                        .password = "p"});
  REQUIRE(w.ok());
  AppendConfirmed(w->get(), 0, 9);
  auto r = reader_client->OpenLedger((*w)->ledger_id(), "p", false);
  REQUIRE(r.ok());
  REQUIRE((*r)->ReadLac().ok());
  const int64_t lac = (*r)->LastAddConfirmed();
  auto tail = (*r)->Tail(0);
  auto* impl = dynamic_cast<TailIteratorImpl*>(tail.get());
  REQUIRE(impl != nullptr);
  ExpectTail(tail.get(), 0, lac);
  const absl::Time caught_up = absl::Now();
  CHECK(absl::IsDeadlineExceeded(tail->Next(absl::Milliseconds(50)).status()));
  CHECK(impl->generations() >= 1u);  // it tried
  AppendConfirmed(w->get(), 10, 29);
  ExpectTail(tail.get(), lac + 1, 28);
  for (int i = 0; i < 20; ++i) {
    REQUIRE(
        absl::IsDeadlineExceeded(tail->Next(absl::Milliseconds(50)).status()));
  }
  CHECK(impl->entries_pushed() == 0);
  // Every generation ends at once; the back-off doubles from 100 ms after
  // each, so in `waited` there are at most 2 + log2(1 + waited / 100 ms).
  const double waited_ms = absl::ToDoubleMilliseconds(absl::Now() - caught_up);
  INFO("generations " << impl->generations() << " in " << waited_ms << " ms");
  CHECK(static_cast<double>(impl->generations()) <=
        2 + std::log2(1 + waited_ms / 100));
  REQUIRE((*w)->Close().ok());
  ExpectTail(tail.get(), 29, 29);
  CHECK(absl::IsOutOfRange(tail->Next(absl::Seconds(30)).status()));
}

TEST_CASE(
    "a tail whose streaming bookie goes away reads on through the writer's "
    "ensemble change",
    "[client]") {
  LocalBookies bookies(4);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(PatientReader(bookies, true));
  auto w = writer_client->CreateLedger({.ensemble_size = 3,
                                        .write_quorum = 2,
                                        .ack_quorum = 2,
                                        .password = "p"});
  REQUIRE(w.ok());
  AppendConfirmed(w->get(), 0, 9);
  const int64_t id = (*w)->ledger_id();
  auto r = reader_client->OpenLedger(id, "p", false);
  REQUIRE(r.ok());
  REQUIRE((*r)->ReadLac().ok());
  const int64_t lac = (*r)->LastAddConfirmed();
  auto tail = (*r)->Tail(0);
  auto* impl = dynamic_cast<TailIteratorImpl*>(tail.get());
  REQUIRE(impl != nullptr);
  ExpectTail(tail.get(), 0, lac);
  CHECK(absl::IsDeadlineExceeded(tail->Next(absl::Milliseconds(50)).status()));
  REQUIRE(impl->generations() == 1u);
  AppendConfirmed(w->get(), 10, 19);
  ExpectTail(tail.get(), lac + 1, 18);
  const int64_t pushed = impl->entries_pushed();
  CHECK(pushed == 18 - lac);
  // The bookie streaming entry 19 (the last member of its write set) goes:
  // its stream ends, the writer replaces it with the fourth bookie, and the
  // tail reads on from the new ensemble.
  const auto md = ReadMetadata(bookies, id);
  REQUIRE(md.segments_size() == 1);
  bookies.Stop(bookies.IndexOf(md.segments(0).bookies((19 + 1) % 3)));
  AppendConfirmed(w->get(), 20, 40);
  ExpectTail(tail.get(), 19, 39);
  REQUIRE(ReadMetadata(bookies, id).segments_size() >= 2);
  // Caught up again: once the back-off after the lost stream has passed,
  // streams on the new ensemble carry the rest.
  for (int i = 0; i < 200 && impl->generations() < 2u; ++i) {
    REQUIRE(
        absl::IsDeadlineExceeded(tail->Next(absl::Milliseconds(50)).status()));
  }
  REQUIRE(impl->generations() == 2u);
  AppendConfirmed(w->get(), 41, 60);
  ExpectTail(tail.get(), 40, 59);
  CHECK(impl->entries_pushed() >= pushed + 20);
}

}  // namespace
}  // namespace bk::client::testing
