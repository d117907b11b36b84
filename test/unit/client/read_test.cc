// Read path: ranges in order, digest checks with fail-over, speculative
// reads, LAC reads and long polls.

#include <catch2/catch.hpp>
#include <thread>

#include "test/support/poll_until.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

// Writes `n` entries one at a time (so entry e carries LAC e - 1).
int64_t WriteLedger(Client* client, int n, CreateLedgerOptions o,
                    bool close = true) {
  auto w = client->CreateLedger(o);
  REQUIRE(w.ok());
  for (int e = 0; e < n; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  if (close) REQUIRE((*w)->Close().ok());
  return (*w)->ledger_id();
}

TEST_CASE("a closed ledger reads back in order through a small window",
          "[client]") {
  LocalBookies bookies(3);
  ClientOptions o = FastOptions(bookies);
  o.read_window = 4;
  auto client = MakeClient(o);
  const int64_t id = WriteLedger(client.get(), 50,
                                 {.ensemble_size = 3,
                                  .write_quorum = 2,
                                  .ack_quorum = 2,
                                  .password = "p"});
  auto r = client->OpenLedger(id, "p", /*recover=*/false);
  REQUIRE(r.ok());
  CHECK((*r)->state() == LedgerState::kClosed);
  CHECK((*r)->LastAddConfirmed() == 49);
  ExpectEntries(r->get(), 0, 49);
  ExpectEntries(r->get(), 17, 23);
  auto past = (*r)->Read(40, 60);
  LedgerEntry e;
  CHECK_FALSE(past->Next(&e));
  CHECK(absl::IsOutOfRange(past->status()));
  CHECK(absl::IsPermissionDenied(client->OpenLedger(id, "wrong").status()));
}

TEST_CASE(
    "a range reads back whole and in order, streamed or entry by entry, with "
    "E == WQ and striped with E > WQ",
    "[client]") {
  LocalBookies bookies(5);
  struct Shape {
    int e, wq, aq;
  };
  for (const Shape shape :
       {Shape{3, 3, 2}, Shape{3, 2, 2}, Shape{5, 2, 2}, Shape{5, 3, 2}}) {
    for (const bool batch : {true, false}) {
      for (const int window : {1, 2, 7, 64, 300}) {
        INFO("E" << shape.e << " WQ" << shape.wq << " batchReadEnabled "
                 << batch << " readWindow " << window);
        ClientOptions o = FastOptions(bookies);
        o.read_window = window;
        o.batch_read_enabled = batch;
        auto client = MakeClient(o);
        const int64_t id = WriteLedger(client.get(), 257,
                                       {.ensemble_size = shape.e,
                                        .write_quorum = shape.wq,
                                        .ack_quorum = shape.aq,
                                        .password = "p"});
        auto r = client->OpenLedger(id, "p", /*recover=*/false);
        REQUIRE(r.ok());
        ExpectEntries(r->get(), 0, 256);
        ExpectEntries(r->get(), 100, 100);
        ExpectEntries(r->get(), 255, 256);
        ExpectEntries(r->get(), 3, 9);
      }
    }
  }
}

TEST_CASE(
    "a streamed range whose bookie starts serving damaged entries mid-read is "
    "read from the other replicas",
    "[client]") {
  LocalBookies bookies(3);
  ClientOptions o = FastOptions(bookies);
  o.read_window = 32;
  auto client = MakeClient(o);
  // E == WQ (one stream) and E > WQ (a strided stream per write set).
  for (const int wq : {3, 2}) {
    const int64_t id = WriteLedger(client.get(), 200,
                                   {.ensemble_size = 3,
                                    .write_quorum = wq,
                                    .ack_quorum = 2,
                                    .password = "p"});
    auto r = client->OpenLedger(id, "p", /*recover=*/false);
    REQUIRE(r.ok());
    // Every bookie in turn: whichever one the streams go to, the reads
    // still return every entry.
    for (int down = 0; down < 3; ++down) {
      INFO("WQ " << wq << ", bookie " << down << " damaged from entry 50");
      auto it = (*r)->Read(0, 199);
      LedgerEntry e;
      for (int64_t want = 0; want < 200; ++want) {
        if (want == 50) bookies.faults(down)->corrupt_reads = true;
        REQUIRE(it->Next(&e));
        CHECK(e.entry_id == want);
        CHECK(e.payload == Payload(want));
      }
      CHECK_FALSE(it->Next(&e));
      CHECK(it->status().ok());
      bookies.faults(down)->corrupt_reads = false;
    }
  }
}

// Entries the bookies have served (ReadEntry calls, single and in ranges).
int64_t ReadsServed(LocalBookies& bookies) {
  int64_t n = 0;
  for (int b = 0; b < bookies.size(); ++b) n += bookies.faults(b)->reads.load();
  return n;
}

TEST_CASE(
    "a reader going through a ledger in batches reads ahead between them, "
    "each entry once and never past the LAC",
    "[client]") {
  LocalBookies bookies(3);
  auto reads = [&bookies] { return ReadsServed(bookies); };
  ClientOptions o = FastOptions(bookies);
  o.read_window = 300;
  // No speculative second reads: every read a bookie serves is counted.
  o.speculative_read_timeout = absl::Seconds(60);
  auto client = MakeClient(o);
  for (const int wq : {3, 2}) {
    for (const bool close : {true, false}) {
      INFO("E3 WQ" << wq << (close ? " closed" : " open"));
      const int64_t id = WriteLedger(client.get(), 600,
                                     {.ensemble_size = 3,
                                      .write_quorum = wq,
                                      .ack_quorum = 2,
                                      .password = "p"},
                                     close);
      auto r = client->OpenLedger(id, "p", /*recover=*/false);
      REQUIRE(r.ok());
      if (!close) {
        // Each bookie answers ReadLac with its last entry (a read each);
        // the call returns once enough have answered.
        const int64_t base = reads();
        REQUIRE((*r)->ReadLac().ok());
        REQUIRE(bk::testing::PollUntil([&] { return reads() - base == 3; },
                                       absl::Seconds(10)));
      }
      const int64_t lac = (*r)->LastAddConfirmed();
      REQUIRE(lac >= 500);
      const int64_t before = reads();
      // Random access reads what it asks for and nothing more.
      ExpectEntries(r->get(), 0, 99);
      ExpectEntries(r->get(), 300, 399);
      CHECK(reads() - before == 200);
      // In batches from the start: from the second batch on, each Read()
      // streams past its end, and the next takes those reads over.
      const int64_t start = reads();
      ExpectEntries(r->get(), 0, 99);
      ExpectEntries(r->get(), 100, 199);
      CHECK(bk::testing::PollUntil([&] { return reads() - start > 200; },
                                   absl::Seconds(10)));
      for (int64_t first = 200; first <= lac; first += 100) {
        ExpectEntries(r->get(), first, std::min(lac, first + 99));
      }
      // Every entry up to the LAC read once, none after it.
      CHECK(reads() - start == lac + 1);
    }
  }
}

TEST_CASE(
    "an open ledger's first range is sized by the entry ReadLac brings back, "
    "not by a small default window",
    "[client]") {
  LocalBookies bookies(3);
  auto reads = [&bookies] { return ReadsServed(bookies); };
  ClientOptions o = FastOptions(bookies);
  o.read_window = 1000;
  o.speculative_read_timeout = absl::Seconds(60);
  auto client = MakeClient(o);
  const int64_t id = WriteLedger(
      client.get(), 800,
      {.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2, .password = "p"},
      /*close=*/false);
  auto r = client->OpenLedger(id, "p", /*recover=*/false);
  REQUIRE(r.ok());
  const int64_t base = reads();
  REQUIRE((*r)->ReadLac().ok());
  REQUIRE(bk::testing::PollUntil([&] { return reads() - base == 3; },
                                 absl::Seconds(10)));
  const int64_t lac = (*r)->LastAddConfirmed();
  REQUIRE(lac >= 700);
  // One entry taken: the iterator's first range already covers the
  // window's worth of the ledger (the entries are ~10 bytes, so
  // readWindowBytes does not bind), not the 64 entries it issued before
  // the ledger's entry size was known.
  const int64_t before = reads();
  auto it = (*r)->Read(0, lac);
  LedgerEntry e;
  REQUIRE(it->Next(&e));
  CHECK(e.payload == Payload(0));
  CHECK(bk::testing::PollUntil([&] { return reads() - before == lac + 1; },
                               absl::Seconds(10)));
  for (int64_t want = 1; want <= lac; ++want) {
    REQUIRE(it->Next(&e));
    REQUIRE(e.entry_id == want);
  }
  CHECK_FALSE(it->Next(&e));
  CHECK(it->status().ok());
}

TEST_CASE("a replica serving a corrupted entry is skipped for a good one",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  const int64_t id = WriteLedger(client.get(), 30,
                                 {.ensemble_size = 3,
                                  .write_quorum = 3,
                                  .ack_quorum = 3,
                                  .password = "p"});
  // Two of the three replicas of every entry serve damaged bytes.
  bookies.faults(0)->corrupt_reads = true;
  bookies.faults(1)->corrupt_reads = true;
  auto r = client->OpenLedger(id, "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 29);

  // All three damaged: DATA_LOSS, naming the ledger and the entry.
  bookies.faults(2)->corrupt_reads = true;
  auto bad = (*r)->ReadEntry(7);
  REQUIRE(absl::IsDataLoss(bad.status()));
  const std::string msg(bad.status().message());
  CHECK(msg.find("ledger " + std::to_string(id)) != std::string::npos);
  CHECK(msg.find("entry 7") != std::string::npos);
  CHECK(msg.find("b0") != std::string::npos);
}

TEST_CASE("a read goes to the next replica when one is down", "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  const int64_t id = WriteLedger(client.get(), 30,
                                 {.ensemble_size = 3,
                                  .write_quorum = 2,
                                  .ack_quorum = 2,
                                  .password = "p"});
  bookies.Stop(1);
  auto r = client->OpenLedger(id, "p", false);
  REQUIRE(r.ok());
  ExpectEntries(r->get(), 0, 29);
}

TEST_CASE("a replica slower than speculativeReadTimeout gets company",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  const int64_t id = WriteLedger(client.get(), 6,
                                 {.ensemble_size = 3,
                                  .write_quorum = 3,
                                  .ack_quorum = 3,
                                  .password = "p"});
  // The first replica of entry 0 hangs on reads.
  const auto md = ReadMetadata(bookies, id);
  const int first = bookies.IndexOf(md.segments(0).bookies(0));
  bookies.faults(first)->hang_reads = true;
  auto r = client->OpenLedger(id, "p", false);
  REQUIRE(r.ok());
  auto e = (*r)->ReadEntry(0);
  REQUIRE(e.ok());
  CHECK(e->payload == Payload(0));
  CHECK(Metric(*client, "bk_client_speculative_reads_total") >= 1);
  bookies.faults(first)->ReleaseReads();
}

TEST_CASE("a reader of an open ledger learns the LAC and long-polls for more",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  for (int e = 0; e < 10; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  auto r = client->OpenLedger((*w)->ledger_id(), "p", /*recover=*/false);
  REQUIRE(r.ok());
  CHECK((*r)->state() == LedgerState::kOpen);
  auto lac = (*r)->ReadLac();
  REQUIRE(lac.ok());
  CHECK(*lac >= 8);  // entry 9 carries LAC 8
  ExpectEntries(r->get(), 0, *lac);

  const int64_t before = *lac;
  auto waited = std::async(std::launch::async, [&] {
    return (*r)->WaitForLac(before, absl::Seconds(20));
  });
  for (int e = 10; e < 12; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  REQUIRE(waited.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  auto after = waited.get();
  REQUIRE(after.ok());
  CHECK(*after > before);
}

TEST_CASE(
    "an admin open reads any ledger without its password and never fences "
    "its writer",
    "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "secret"});
  REQUIRE(w.ok());
  for (int e = 0; e < 10; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());
  }
  auto r = client->OpenLedgerForAdmin((*w)->ledger_id());
  REQUIRE(r.ok());
  CHECK((*r)->state() == LedgerState::kOpen);
  auto lac = (*r)->ReadLac();
  REQUIRE(lac.ok());
  ExpectEntries(r->get(), 0, *lac);
  // The writer goes on: nothing was fenced or recovered.
  auto more = (*w)->Append(Payload(10));
  CHECK(Get(more).ok());
  CHECK((*w)->Close().ok());
  CHECK(absl::IsNotFound(client->OpenLedgerForAdmin(987654).status()));
}

}  // namespace
}  // namespace bk::client::testing
