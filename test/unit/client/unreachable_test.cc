// A bookie that cannot be reached is one error, however many calls the
// failure fails: a connection reports it once (ChannelConfig::on_unreachable)
// until the bookie answers again, and a writer does not count the adds a
// broken stream failed one by one. Before, every add in flight on a stream
// that broke counted, so one lost connection with more than
// bookieErrorThresholdPerInterval adds in flight quarantined a live bookie
// (a rolling restart did it to every bookie). BookKeeper does not count a
// lost channel's requests either (BookieHandleNotAvailable is an expected
// error there).

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "client/internal/bookie_client.h"
#include "test/unit/client/test_util.h"

namespace bk::client::internal {
namespace {

using bk::client::Client;
using bk::client::testing::AppendAll;
using bk::client::testing::ExpectAllConfirmed;
using bk::client::testing::FastOptions;
using bk::client::testing::LocalBookies;
using bk::client::testing::MakeClient;
using bk::client::testing::Metric;
using bk::client::testing::ReadMetadata;
using bk::testing::PollUntil;

// Collects the answers a connection gives a sink.
class Answers final : public AddSink {
 public:
  void OnAddAnswers(const std::string& /*bookie*/,
                    absl::Span<const AddAnswer> answers) override {
    absl::MutexLock l(&mu_);
    for (const AddAnswer& a : answers) got_.push_back(a);
  }
  std::vector<AddAnswer> got() {
    absl::MutexLock l(&mu_);
    return got_;
  }

 private:
  absl::Mutex mu_;
  std::vector<AddAnswer> got_ ABSL_GUARDED_BY(mu_);
};

// A connection's settings that count its reports of bookie b0 in *reports.
ChannelConfig Counting(std::atomic<int>* reports) {
  ChannelConfig config;
  config.on_unreachable = [reports](const std::string& id) {
    CHECK(id == "b0");
    reports->fetch_add(1);
  };
  return config;
}

// Entry `entry` of ledger 1, packaged as a writer would.
EntryBytes Body(int64_t entry) {
  entry::EntryHeader h;
  h.ledger_id = 1;
  h.entry_id = entry;
  return EntryBytes::Package(h, absl::string_view("body"),
                             entry::DigestType::kCrc32c);
}

absl::Status AddOne(BookieClient& conn, int64_t entry) {
  std::promise<absl::Status> p;
  auto f = p.get_future();
  conn.Add(1, entry, "key", 0, Body(entry),
           [&p](absl::Status s) { p.set_value(std::move(s)); });
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  return f.get();
}

absl::Status InfoOnce(BookieClient& conn) {
  std::promise<absl::Status> p;
  auto f = p.get_future();
  conn.GetBookieInfo(0, absl::Seconds(10),
                     [&p](absl::StatusOr<proto::GetBookieInfoResponse> r) {
                       p.set_value(r.status());
                     });
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  return f.get();
}

TEST_CASE(
    "a connection reports its bookie unreachable once per spell, not once "
    "per call the spell fails",
    "[client]") {
  LocalBookies bookies(1);
  std::atomic<int> reports{0};
  BookieClient conn("b0", bookies.endpoint(0), Counting(&reports));
  REQUIRE(AddOne(conn, 0).ok());

  // Adds held by the bookie when its server goes: the stream ends with
  // them unanswered.
  bookies.faults(0)->drop_adds_from = 1;
  auto sink = std::make_shared<Answers>();
  for (int64_t e = 1; e <= 20; ++e) {
    conn.Add(1, e, "key", 0, Body(e), sink, /*tag=*/7, absl::Now());
  }
  REQUIRE(
      PollUntil([&] { return bookies.faults(0)->swallowed_count() == 20; }));
  std::thread stop([&] { bookies.Stop(0, /*answer_swallowed=*/false); });
  REQUIRE(PollUntil([&] { return sink->got().size() == 20; }));
  bookies.faults(0)->ReleaseSwallowed();  // into streams already cancelled
  stop.join();
  for (const AddAnswer& a : sink->got()) {
    INFO(a.status.ToString());
    CHECK(absl::IsUnavailable(a.status));
    CHECK(a.stream_ended);
    CHECK(a.tag == 7);
  }
  CHECK(reports.load() == 1);

  // More calls fail while it is down: the same spell.
  CHECK(absl::IsUnavailable(AddOne(conn, 21)));
  CHECK(absl::IsUnavailable(InfoOnce(conn)));
  CHECK(reports.load() == 1);

  // Back, it answers; the next failure is a new spell.
  bookies.faults(0)->drop_adds_from = -1;
  bookies.Restart(0);
  conn.ResetConnectBackoff();
  REQUIRE(PollUntil([&] { return InfoOnce(conn).ok(); }));
  CHECK(reports.load() == 1);
  bookies.Stop(0);
  CHECK(absl::IsUnavailable(InfoOnce(conn)));
  CHECK(reports.load() == 2);
}

// Streams entries 0..last of ledger 1 (ReadEntries); the transport status.
absl::Status ReadRange(BookieClient& conn, int64_t last, int* entries) {
  proto::ReadEntriesRequest request;
  request.set_ledger_id(1);
  request.set_first_entry_id(0);
  request.set_last_entry_id(last);
  std::promise<absl::Status> p;
  auto f = p.get_future();
  conn.ReadEntries(
      request, absl::Seconds(10),
      [entries](proto::ReadEntryResponse&&) { ++*entries; },
      [&p](absl::Status s) { p.set_value(std::move(s)); });
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  return f.get();
}

TEST_CASE(
    "a read stream that cannot reach its bookie is the connection's failure, "
    "and one that delivers is its answer",
    "[client]") {
  LocalBookies bookies(1);
  std::atomic<int> reports{0};
  BookieClient conn("b0", bookies.endpoint(0), Counting(&reports));
  for (int64_t e = 0; e < 3; ++e) REQUIRE(AddOne(conn, e).ok());
  bookies.Stop(0);
  int entries = 0;
  CHECK(absl::IsUnavailable(ReadRange(conn, 2, &entries)));
  CHECK(reports.load() == 1);

  bookies.Restart(0);
  conn.ResetConnectBackoff();
  REQUIRE(PollUntil([&] {
    entries = 0;
    return ReadRange(conn, 2, &entries).ok() && entries == 3;
  }));
  bookies.Stop(0);
  CHECK(absl::IsUnavailable(ReadRange(conn, 2, &entries)));
  CHECK(reports.load() == 2);
}

TEST_CASE(
    "a bookie's answer of an error is not the connection's failure, and a "
    "connection this client closes is not either",
    "[client]") {
  LocalBookies bookies(1);
  std::atomic<int> reports{0};
  auto conn = std::make_unique<BookieClient>("b0", bookies.endpoint(0),
                                             Counting(&reports));
  bookies.faults(0)->fail_adds_from = 0;
  auto sink = std::make_shared<Answers>();
  for (int64_t e = 0; e < 5; ++e) {
    conn->Add(1, e, "key", 0, Body(e), sink, 0, absl::Now());
  }
  REQUIRE(PollUntil([&] { return sink->got().size() == 5; }));
  for (const AddAnswer& a : sink->got()) {
    CHECK_FALSE(a.status.ok());
    CHECK_FALSE(a.stream_ended);
  }

  // Adds the bookie holds when this client shuts the connection down.
  bookies.faults(0)->fail_adds_from = -1;
  bookies.faults(0)->drop_adds_from = 0;
  conn->Add(1, 10, "key", 0, Body(10), sink, 0, absl::Now());
  REQUIRE(PollUntil([&] { return bookies.faults(0)->swallowed_count() == 1; }));
  conn->Shutdown();
  REQUIRE(sink->got().size() == 6);
  CHECK(sink->got().back().stream_ended);
  CHECK(reports.load() == 0);
  bookies.faults(0)->ReleaseSwallowed();
}

TEST_CASE(
    "a bookie whose connection breaks with many adds in flight counts one "
    "error, and is not quarantined for it",
    "[client]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);
  o.bookie_error_threshold_per_interval = 5;
  o.bookie_quarantine_time = absl::Hours(1);
  o.quarantine_release_healthy_reports = 0;  // nothing releases it early
  // No GetBookieInfo polls: their failures are errors of their own.
  o.get_bookie_info_interval = absl::Hours(1);
  auto client = MakeClient(o);
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md0 = ReadMetadata(bookies, (*w)->ledger_id());
  const std::string victim_id = md0.segments(0).bookies(0);
  const int victim = bookies.IndexOf(victim_id);

  // 50 adds the victim holds; the other two confirm them.
  bookies.faults(victim)->drop_adds_from = 0;
  auto first = AppendAll(w->get(), 0, 49);
  ExpectAllConfirmed(first, 0);
  REQUIRE(PollUntil(
      [&] { return bookies.faults(victim)->swallowed_count() == 50; }));

  // Its process dies: the stream ends with the 50 unanswered. The writer
  // replaces it (a second segment) once it has seen them fail.
  std::thread stop([&] { bookies.Stop(victim, /*answer_swallowed=*/false); });
  REQUIRE(PollUntil([&] {
    return ReadMetadata(bookies, (*w)->ledger_id()).segments_size() == 2;
  }));
  bookies.faults(victim)->ReleaseSwallowed();
  stop.join();

  auto second = AppendAll(w->get(), 50, 99);
  ExpectAllConfirmed(second, 50);
  const auto q = client->QuarantinedBookies();
  CHECK(std::find(q.begin(), q.end(), victim_id) == q.end());
  CHECK(Metric(*client, "bk_client_quarantines_total") == 0);
  REQUIRE((*w)->Close().ok());

  // Not quarantined, but not placed on while it cannot be reached.
  for (int i = 0; i < 5; ++i) {
    auto next = client->CreateLedger({.ensemble_size = 3,
                                      .write_quorum = 3,
                                      .ack_quorum = 2,
                                      .password = "p"});
    REQUIRE(next.ok());
    const auto md = ReadMetadata(bookies, (*next)->ledger_id());
    for (const auto& b : md.segments(0).bookies()) CHECK(b != victim_id);
    REQUIRE(md.placement_notes().contains(victim_id));
    CHECK(absl::StrContains(md.placement_notes().at(victim_id).left_out(),
                            "unreachable"));
  }
}

// What the notes of a ledger created now say of `id`: its left_out, or ""
// when it has no note.
std::string LeftOutNow(Client* client, const LocalBookies& bookies,
                       const std::string& id) {
  auto w = client->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 3,
                                 .ack_quorum = 2,
                                 .password = "p"});
  REQUIRE(w.ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  auto it = md.placement_notes().find(id);
  return it == md.placement_notes().end() ? "" : it->second.left_out();
}

TEST_CASE(
    "a bookie found unreachable is left out of new ensembles until it "
    "answers again",
    "[client]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);  // GetBookieInfo every 200 ms
  // Quarantine out of the way: its polls' failures are errors too.
  o.bookie_error_threshold_per_interval = 1000000;
  auto client = MakeClient(o);
  const std::string id = bookies.id(2);
  bookies.Stop(2);
  // A poll fails to connect: the connection reports it.
  REQUIRE(PollUntil([&] {
    return absl::StrContains(LeftOutNow(client.get(), bookies, id),
                             "unreachable");
  }));
  bookies.Restart(2);
  // A poll is answered (the pool's connection reconnects within its 1 s
  // backoff).
  REQUIRE(PollUntil([&] {
    return !absl::StrContains(LeftOutNow(client.get(), bookies, id),
                              "unreachable");
  }));
  CHECK(client->QuarantinedBookies().empty());
}

}  // namespace
}  // namespace bk::client::internal
