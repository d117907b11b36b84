// Write path: striping over the ensemble, ordered completions, LAC
// piggybacking, close, the pending-bytes bound.

#include <catch2/catch.hpp>

#include "absl/synchronization/mutex.h"
#include "proto/entry_format.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

TEST_CASE("entries are striped over the ensemble and complete in entry order",
          "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const int64_t ledger = (*w)->ledger_id();

  absl::Mutex mu;
  std::vector<int64_t> order;
  constexpr int kEntries = 200;
  for (int e = 0; e < kEntries; ++e) {
    // No Catch assertions off the test thread: record, check below.
    (*w)->Append(Payload(e), [&](absl::StatusOr<int64_t> id) {
      absl::MutexLock l(&mu);
      order.push_back(id.ok() ? *id : -100);
    });
  }
  REQUIRE(PollUntil([&] {
    absl::MutexLock l(&mu);
    return order.size() == kEntries;
  }));
  for (int e = 0; e < kEntries; ++e) REQUIRE(order[e] == e);
  CHECK((*w)->LastAddConfirmed() == kEntries - 1);
  REQUIRE((*w)->Close().ok());

  const auto md = ReadMetadata(bookies, ledger);
  CHECK(md.state() == proto::CLOSED);
  CHECK(md.last_entry_id() == kEntries - 1);
  CHECK(md.password_hash() == PasswordHash("p"));
  CHECK(md.password_hash().find("p") == std::string::npos);
  CHECK(md.placement_notes_size() == 3);
  REQUIRE(md.segments_size() == 1);
  // Entry e is on ensemble slots e % 3 and (e + 1) % 3 only.
  for (int e = 0; e < kEntries; ++e) {
    for (int slot = 0; slot < 3; ++slot) {
      const int b = bookies.IndexOf(md.segments(0).bookies(slot));
      const bool in_write_set = slot == e % 3 || slot == (e + 1) % 3;
      auto got = bookies.store(b)->ReadEntry(ledger, e);
      INFO("entry " << e << " slot " << slot);
      CHECK(got.ok() == in_write_set);
    }
  }
}

TEST_CASE(
    "a payload handed over as a string and one passed as a view reach every "
    "replica as the same packaged entry",
    "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 3,
                                 .password = "p"});
  REQUIRE(w.ok());
  constexpr int kEntries = 40;
  std::vector<std::string> payloads;
  for (int e = 0; e < kEntries; ++e) {
    // Sizes around the slices' inline and small-buffer limits, and 0.
    payloads.push_back(std::string(static_cast<size_t>(e * 97 % 3000),
                                   static_cast<char>('a' + e % 26)));
  }
  for (int e = 0; e < kEntries; ++e) {
    std::future<absl::StatusOr<int64_t>> f;
    if (e % 2 == 0) {
      std::string owned = payloads[e];
      f = (*w)->Append(std::move(owned));
    } else {
      f = (*w)->Append(absl::string_view(payloads[e]));
    }
    auto id = Get(f);
    REQUIRE(id.ok());
    CHECK(*id == e);
  }
  int64_t length = 0;
  for (const std::string& p : payloads) length += p.size();
  CHECK((*w)->Length() == length);
  for (int b = 0; b < 3; ++b) {
    for (int e = 0; e < kEntries; ++e) {
      INFO("bookie " << b << " entry " << e);
      auto body = bookies.store(b)->ReadEntry((*w)->ledger_id(), e);
      REQUIRE(body.ok());
      auto d = entry::Decode(**body, entry::DigestType::kCrc32c,
                             static_cast<uint64_t>((*w)->ledger_id()), e);
      REQUIRE(d.ok());
      CHECK(d->payload == payloads[e]);
    }
  }
}

TEST_CASE("each entry carries the LAC known when it was appended", "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 3,
                                 .password = "p"});
  REQUIRE(w.ok());
  for (int e = 0; e < 5; ++e) {
    auto f = (*w)->Append(Payload(e));
    REQUIRE(Get(f).ok());  // one at a time: entry e carries LAC e - 1
  }
  for (int e = 0; e < 5; ++e) {
    auto body = bookies.store(0)->ReadEntry((*w)->ledger_id(), e);
    REQUIRE(body.ok());
    auto h = entry::ParseHeader(**body);
    REQUIRE(h.ok());
    CHECK(h->last_add_confirmed == e - 1);
  }
  CHECK((*w)->Length() == 5 * static_cast<int64_t>(Payload(0).size()));
}

TEST_CASE("an append after close fails with FAILED_PRECONDITION", "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto w = client->CreateLedger({.password = "p"});
  REQUIRE(w.ok());
  auto f = (*w)->Append("x");
  REQUIRE(Get(f).ok());
  REQUIRE((*w)->Close().ok());
  auto late = (*w)->Append("y");
  auto r = Get(late);
  CHECK(absl::IsFailedPrecondition(r.status()));
  CHECK(r.status().message().find("ledger") != absl::string_view::npos);
}

TEST_CASE("pending add bytes are bounded: appends fail RESOURCE_EXHAUSTED",
          "[client]") {
  LocalBookies bookies(3);
  // Every bookie swallows adds: nothing is ever confirmed.
  for (int i = 0; i < 3; ++i) bookies.faults(i)->drop_adds_from = 0;
  ClientOptions o = FastOptions(bookies);
  o.max_pending_adds_bytes = 4096;
  o.add_entry_timeout = absl::Seconds(60);
  o.pending_adds_wait = absl::Milliseconds(100);
  auto client = MakeClient(o);
  auto w = client->CreateLedger({.password = "p"});
  REQUIRE(w.ok());
  // 4096 bytes hold 7 packaged 512-byte entries; nothing is ever confirmed,
  // so the 20th append must be refused once its wait for room runs out.
  std::vector<std::future<absl::StatusOr<int64_t>>> fs;
  for (int e = 0; e < 20; ++e)
    fs.push_back((*w)->Append(std::string(512, 'x')));
  REQUIRE(fs.back().wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  CHECK(absl::IsResourceExhausted(fs.back().get().status()));
  // The first one was admitted and is still pending.
  CHECK(fs.front().wait_for(std::chrono::milliseconds(0)) ==
        std::future_status::timeout);
  bookies.ReleaseAllSwallowed();
}

TEST_CASE("create, list and delete ledgers", "[client]") {
  LocalBookies bookies(3);
  auto client = MakeClient(FastOptions(bookies));
  auto a = client->CreateLedger(
      {.password = "p", .custom_metadata = {{"app", "broker"}}});
  auto b = client->CreateLedger({.password = "p"});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto ids = client->ListLedgers();
  REQUIRE(ids.ok());
  CHECK(ids->size() == 2);
  CHECK(ReadMetadata(bookies, (*a)->ledger_id()).custom_metadata().at("app") ==
        "broker");
  REQUIRE(client->DeleteLedger((*a)->ledger_id()).ok());
  CHECK(client->ListLedgers()->size() == 1);
  CHECK(absl::IsNotFound(client->DeleteLedger((*a)->ledger_id())));
  CHECK(absl::IsInvalidArgument(
      client
          ->CreateLedger(
              {.ensemble_size = 2, .write_quorum = 3, .ack_quorum = 2})
          .status()));
  CHECK(absl::IsUnavailable(
      client->CreateLedger({.ensemble_size = 5, .write_quorum = 3}).status()));
}

}  // namespace
}  // namespace bk::client::testing
