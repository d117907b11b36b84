// A tailing reader (opened without recovery while the writer goes on)
// across the writer's ensemble changes: it must follow the ledger's
// metadata, or it keeps asking the old ensemble, whose bookies do not hold
// the later entries, and its LAC stalls.

#include <catch2/catch.hpp>
#include <future>
#include <set>

#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

// Asks the bookies for the LAC until it reaches `at_least`; returns the
// last one learnt (or -2 when every ask failed).
int64_t LacReaching(LedgerReader* r, int64_t at_least) {
  int64_t lac = -2;
  PollUntil(
      [&] {
        auto l = r->ReadLac();
        if (l.ok()) lac = *l;
        return lac >= at_least;
      },
      absl::Seconds(30));
  return lac;
}

// Makes every bookie of the ledger's current ensemble refuse adds from
// `from` on, so the writer replaces them all.
std::set<std::string> FailEnsemble(LocalBookies& bookies, int64_t id,
                                   int64_t from, int how_many) {
  const auto md = ReadMetadata(bookies, id);
  const auto& seg = md.segments(md.segments_size() - 1);
  std::set<std::string> failed;
  for (int i = 0; i < how_many; ++i) {
    bookies.faults(bookies.IndexOf(seg.bookies(i)))->fail_adds_from = from;
    failed.insert(seg.bookies(i));
  }
  return failed;
}

// A writer that has appended entries 0..9 one at a time, and a reader of
// the open ledger (another client) that has learnt a LAC of at least 8.
struct Tailing {
  std::unique_ptr<LedgerWriter> writer;
  std::unique_ptr<LedgerReader> reader;
  int64_t lac = -2;
};
Tailing StartTailing(Client* writer_client, Client* reader_client, int e,
                     int wq, int aq) {
  Tailing t;
  auto w = writer_client->CreateLedger({.ensemble_size = e,
                                        .write_quorum = wq,
                                        .ack_quorum = aq,
                                        .password = "p"});
  REQUIRE(w.ok());
  t.writer = std::move(*w);
  AppendConfirmed(t.writer.get(), 0, 9);
  auto r = reader_client->OpenLedger(t.writer->ledger_id(), "p",
                                     /*recover=*/false);
  REQUIRE(r.ok());
  t.reader = std::move(*r);
  t.lac = LacReaching(t.reader.get(), 8);
  REQUIRE(t.lac >= 8);
  return t;
}

TEST_CASE(
    "a tailing reader follows an ensemble change that replaces every bookie",
    "[client]") {
  LocalBookies bookies(6);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(FastOptions(bookies));
  Tailing t = StartTailing(writer_client.get(), reader_client.get(), 3, 3, 3);
  LedgerWriter* w = t.writer.get();
  LedgerReader* r = t.reader.get();
  const int64_t id = w->ledger_id();
  const int64_t lac0 = t.lac;
  ExpectEntries(r, 0, lac0);

  const std::set<std::string> old = FailEnsemble(bookies, id, 10, 3);
  AppendConfirmed(w, 10, 29);
  const auto md = ReadMetadata(bookies, id);
  REQUIRE(md.segments_size() == 2);
  for (const auto& b : md.segments(1).bookies()) REQUIRE(old.count(b) == 0);

  // Entry 29 carries LAC 28: only the new ensemble knows it.
  const int64_t lac = LacReaching(r, 28);
  CHECK(lac >= 28);
  ExpectEntries(r, lac0 + 1, std::max<int64_t>(lac, lac0 + 1));
  CHECK(r->state() == LedgerState::kOpen);

  SECTION("and sees the ledger closed afterwards") {
    REQUIRE(w->Close().ok());
    CHECK(PollUntil([&] { return r->state() == LedgerState::kClosed; },
                    absl::Seconds(30)));
    CHECK(r->LastAddConfirmed() == 29);
    ExpectEntries(r, 0, 29);
  }
}

TEST_CASE(
    "a tailing reader reads entries whose whole write set was replaced, "
    "though a surviving bookie told it the LAC",
    "[client]") {
  LocalBookies bookies(5);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(FastOptions(bookies));
  Tailing t = StartTailing(writer_client.get(), reader_client.get(), 3, 2, 2);
  LedgerWriter* w = t.writer.get();
  LedgerReader* r = t.reader.get();
  const int64_t id = w->ledger_id();

  // Two of three replaced: the entries striped on exactly those two are on
  // no bookie of the reader's first ensemble.
  FailEnsemble(bookies, id, 10, 2);
  AppendConfirmed(w, 10, 40);
  REQUIRE(ReadMetadata(bookies, id).segments_size() >= 2);
  const int64_t lac = LacReaching(r, 39);
  REQUIRE(lac >= 39);
  for (int64_t e = 0; e <= lac; ++e) {
    auto got = r->ReadEntry(e);
    INFO("entry " << e << ": " << got.status().ToString());
    REQUIRE(got.ok());
    CHECK(got->payload == Payload(e));
  }
}

TEST_CASE(
    "a tailing reader's long poll brings back the entry it waits for, and "
    "reading that entry asks no bookie again",
    "[client]") {
  LocalBookies bookies(3);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(FastOptions(bookies));
  for (const int wq : {2, 3}) {
    INFO("E3 WQ" << wq);
    Tailing t =
        StartTailing(writer_client.get(), reader_client.get(), 3, wq, 2);
    LedgerReader* r = t.reader.get();
    const int64_t before = t.lac;
    ExpectEntries(r, 0, before);
    auto waited = std::async(std::launch::async, [&] {
      return r->WaitForLac(before, absl::Seconds(20));
    });
    // Entry before + 2 carries LAC before + 1 to its write set, which
    // shares a bookie with entry before + 1's.
    AppendConfirmed(t.writer.get(), 10, static_cast<int>(before) + 4);
    REQUIRE(waited.wait_for(std::chrono::seconds(30)) ==
            std::future_status::ready);
    auto after = waited.get();
    REQUIRE(after.ok());
    REQUIRE(*after > before);
    // From now on every bookie damages what it serves: only the entry the
    // long poll brought back can still be read whole.
    for (int b = 0; b < 3; ++b) bookies.faults(b)->corrupt_reads = true;
    ExpectEntries(r, before + 1, before + 1);
    // Taken once: asked again, the entry comes from the bookies, damaged
    // on every replica.
    auto again = r->Read(before + 1, before + 1);
    LedgerEntry e;
    CHECK_FALSE(again->Next(&e));
    CHECK_FALSE(again->status().ok());
    for (int b = 0; b < 3; ++b) bookies.faults(b)->corrupt_reads = false;
    ExpectEntries(r, 0, *after);
  }
}

TEST_CASE(
    "a long poll whose first bookie is gone learns the LAC from the rest of "
    "the write set",
    "[client]") {
  LocalBookies bookies(3);
  auto writer_client = MakeClient(FastOptions(bookies));
  auto reader_client = MakeClient(FastOptions(bookies));
  Tailing t = StartTailing(writer_client.get(), reader_client.get(), 3, 2, 2);
  const int64_t id = t.writer->ledger_id();
  const int64_t before = t.lac;
  // Entries up to before + 4 carry LACs past before + 1 to both members of
  // entry before + 1's write set.
  AppendConfirmed(t.writer.get(), 10, static_cast<int>(before) + 4);
  // The member asked first (the write set's last) goes away.
  const auto md = ReadMetadata(bookies, id);
  REQUIRE(md.segments_size() == 1);
  const std::string gone = md.segments(0).bookies((before + 2) % 3);
  bookies.Stop(bookies.IndexOf(gone));
  auto after = t.reader->WaitForLac(before, absl::Seconds(20));
  REQUIRE(after.ok());
  CHECK(*after > before);
  ExpectEntries(t.reader.get(), before + 1, *after);
}

}  // namespace
}  // namespace bk::client::testing
