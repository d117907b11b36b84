// Recovery after a writer dies: fence, find the last entry, re-replicate,
// close at the right entry.

#include <catch2/catch.hpp>

#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

struct Crashed {
  int64_t ledger = -1;
  proto::LedgerMetadata metadata;
};

// Writes `confirmed` entries, then one more entry that reaches only the
// ensemble slots in `reached` (the others swallow it), then "crashes": the
// writer and its client go away without closing the ledger.
Crashed WriteAndCrash(LocalBookies& bookies, int confirmed,
                      const std::vector<int>& reached) {
  Crashed out;
  auto client = MakeClient(FastOptions(bookies));
  ClientOptions o = FastOptions(bookies);
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  out.ledger = (*w)->ledger_id();
  for (int e = 0; e < confirmed; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  out.metadata = ReadMetadata(bookies, out.ledger);
  if (!reached.empty()) {
    for (int slot = 0; slot < 3; ++slot) {
      if (std::find(reached.begin(), reached.end(), slot) != reached.end()) {
        continue;
      }
      const int b = bookies.IndexOf(out.metadata.segments(0).bookies(slot));
      bookies.faults(b)->drop_adds_from = confirmed;
    }
    (*w)->Append(Payload(confirmed), [](absl::StatusOr<int64_t>) {});
    // Wait until the reached bookies hold it.
    for (int slot : reached) {
      const int b = bookies.IndexOf(out.metadata.segments(0).bookies(slot));
      REQUIRE(PollUntil([&] {
        return bookies.store(b)->ReadEntry(out.ledger, confirmed).ok();
      }));
    }
  }
  w->reset();  // crash: no Close
  bookies.ReleaseAllSwallowed();
  client.reset();
  return out;
}

TEST_CASE("recovery after the writer dies closes at the last confirmed entry",
          "[client]") {
  LocalBookies bookies(3);
  const Crashed c = WriteAndCrash(bookies, 10, {});
  CHECK(ReadMetadata(bookies, c.ledger).state() == proto::OPEN);
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p", /*recover=*/true);
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == 9);
  CHECK((*r)->Length() == 10 * static_cast<int64_t>(Payload(0).size()));
  ExpectEntries(r->get(), 0, 9);
  const auto md = ReadMetadata(bookies, c.ledger);
  CHECK(md.state() == proto::CLOSED);
  CHECK(md.last_entry_id() == 9);
  CHECK(Metric(*client, "bk_client_recoveries_total") == 1);
}

TEST_CASE("an entry that reached AQ bookies before the crash is recovered",
          "[client]") {
  LocalBookies bookies(3);
  // Entry 10 on slots 1 and 2 of 3 (AQ = 2): it may have been confirmed.
  const Crashed c = WriteAndCrash(bookies, 10, {1, 2});
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p");
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == 10);
  ExpectEntries(r->get(), 0, 10);
  // Re-replicated to the whole write set.
  const int b0 = bookies.IndexOf(c.metadata.segments(0).bookies(0));
  CHECK(bookies.store(b0)->ReadEntry(c.ledger, 10).ok());
}

TEST_CASE(
    "an entry on fewer than AQ bookies is recovered when it is found "
    "before WQ - AQ + 1 replicas deny it",
    "[client]") {
  LocalBookies bookies(3);
  // Entry 10's write set is slots 1, 2, 0 in that order; slot 1 has it and
  // is asked first.
  const Crashed c = WriteAndCrash(bookies, 10, {1});
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p");
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == 10);
  ExpectEntries(r->get(), 0, 10);
}

TEST_CASE(
    "an entry on fewer than AQ bookies is dropped when WQ - AQ + 1 "
    "replicas deny it first",
    "[client]") {
  LocalBookies bookies(3);
  // Only slot 0, asked last, has entry 10: slots 1 and 2 deny it first,
  // which proves it was never confirmed; the ledger closes at 9.
  const Crashed c = WriteAndCrash(bookies, 10, {0});
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p");
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == 9);
  ExpectEntries(r->get(), 0, 9);
  CHECK(ReadMetadata(bookies, c.ledger).last_entry_id() == 9);
}

TEST_CASE("recovery with a bookie down still fences a quorum and closes",
          "[client]") {
  LocalBookies bookies(3);
  const Crashed c = WriteAndCrash(bookies, 20, {});
  bookies.Stop(bookies.IndexOf(c.metadata.segments(0).bookies(2)));
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p");
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == 19);
  ExpectEntries(r->get(), 0, 19);
}

TEST_CASE("recovery of an empty ledger closes it at -1", "[client]") {
  LocalBookies bookies(3);
  const Crashed c = WriteAndCrash(bookies, 0, {});
  auto client = MakeClient(FastOptions(bookies));
  auto r = client->OpenLedger(c.ledger, "p");
  REQUIRE(r.ok());
  CHECK((*r)->LastAddConfirmed() == -1);
  CHECK((*r)->Length() == 0);
}

}  // namespace
}  // namespace bk::client::testing
