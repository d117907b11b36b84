// Bookie knowledge: load reports reach the placement policy and the ledger's
// placement notes; quarantine of failing bookies and their early release.

#include <catch2/catch.hpp>
#include <set>

#include "absl/strings/match.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

TEST_CASE("load reports polled from the bookies reach the placement notes",
          "[client]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);
  o.placement.weighting = placement::Weighting::kDisk;
  auto client = MakeClient(o);
  REQUIRE(PollUntil([&] {
    return Metric(*client, "bk_client_bookie_info_polls_total") >= 8;
  }));
  auto w = client->CreateLedger({.password = "p"});
  REQUIRE(w.ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  REQUIRE(md.placement_notes_size() == 3);
  for (const auto& [id, note] : md.placement_notes()) {
    INFO(id);
    CHECK(note.weighting() == "disk");
    CHECK(note.rack() == "/r/rack0");
    CHECK(note.free_disk_space() >= (50 << 20));
    CHECK(note.journal_io_util() == 10);
    CHECK(note.report_age_ms() >= 0);
    CHECK(note.probability() > 0);
    CHECK(note.probability() < 1);
  }
}

// Makes `bad` fail adds until it passes the error threshold.
void DriveIntoQuarantine(Client* client, LocalBookies& bookies, int bad) {
  bookies.faults(bad)->fail_adds_from = 0;
  const std::string id = bookies.id(bad);
  auto quarantined = [&] {
    auto q = client->QuarantinedBookies();
    return std::find(q.begin(), q.end(), id) != q.end();
  };
  while (!quarantined()) {
    // E = 4 of 4 bookies: every ledger has `bad` in its ensemble.
    auto w = client->CreateLedger({.ensemble_size = 4,
                                   .write_quorum = 4,
                                   .ack_quorum = 2,
                                   .password = "p"});
    REQUIRE(w.ok());
    auto f = (*w)->Append("x");
    REQUIRE(Get(f).ok());
  }
  bookies.faults(bad)->fail_adds_from = -1;
}

TEST_CASE(
    "a new ledger's placement notes name the bookies the adaptive policy "
    "left out, and why",
    "[client][placement]") {
  LocalBookies bookies(5);
  // Bookie 4's journal reports 99 % busy: saturated (avoid_util_percent).
  bookies.faults(4)->reported_journal_util = 99;
  ClientOptions o = FastOptions(bookies);
  o.placement.weighting = placement::Weighting::kAdaptive;
  auto client = MakeClient(o);
  const CreateLedgerOptions create{
      .ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2, .password = "p"};
  REQUIRE(PollUntil(
      [&] { return client->PlacementLeftOut(create).contains("b4"); }));
  auto w = client->CreateLedger(create);
  REQUIRE(w.ok());
  const auto md = ReadMetadata(bookies, (*w)->ledger_id());
  std::set<std::string> members(md.segments(0).bookies().begin(),
                                md.segments(0).bookies().end());
  CHECK_FALSE(members.contains("b4"));
  for (const auto& [id, note] : md.placement_notes()) {
    INFO(id << ": " << note.left_out());
    if (members.contains(id)) {
      CHECK(note.left_out().empty());
    } else {
      CHECK(id == "b4");
      CHECK(absl::StrContains(note.left_out(), "journal 99 % busy"));
      CHECK(note.journal_io_util() == 99);
    }
  }
  CHECK(md.placement_notes().contains("b4"));
}

TEST_CASE("a bookie past the error threshold is quarantined and avoided",
          "[client]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);
  o.bookie_error_threshold_per_interval = 2;
  o.bookie_quarantine_time = absl::Hours(1);
  o.quarantine_release_healthy_reports = 0;  // no early release
  auto client = MakeClient(o);
  DriveIntoQuarantine(client.get(), bookies, 3);
  CHECK(Metric(*client, "bk_client_quarantines_total") >= 1);
  for (int i = 0; i < 20; ++i) {
    auto w = client->CreateLedger({.ensemble_size = 3,
                                   .write_quorum = 3,
                                   .ack_quorum = 2,
                                   .password = "p"});
    REQUIRE(w.ok());
    const auto md = ReadMetadata(bookies, (*w)->ledger_id());
    for (const auto& b : md.segments(0).bookies()) {
      CHECK(b != "b3");
    }
    // `placement explain` can say why: a note for b3, left out.
    REQUIRE(md.placement_notes().contains("b3"));
    CHECK(absl::StrContains(md.placement_notes().at("b3").left_out(),
                            "quarantined"));
    CHECK(md.placement_notes_size() == 4);
  }
  // Best effort: when the cluster cannot do without it, it is used.
  CHECK(client
            ->CreateLedger({.ensemble_size = 4,
                            .write_quorum = 3,
                            .ack_quorum = 2,
                            .password = "p"})
            .ok());
}

TEST_CASE(
    "a quarantine ends once bookieQuarantineTimeSeconds has passed on the "
    "client's clock",
    "[client]") {
  LocalBookies bookies(4);
  bk::testing::ClockEnv clock(Env::Default());
  ClientOptions o = FastOptions(bookies);
  o.env = &clock;
  o.bookie_error_threshold_per_interval = 2;
  o.bookie_quarantine_time = absl::Hours(1);
  o.quarantine_release_healthy_reports = 0;  // only time releases it
  auto client = MakeClient(o);
  DriveIntoQuarantine(client.get(), bookies, 3);
  clock.Advance(absl::Minutes(59));
  CHECK(client->QuarantinedBookies() == std::vector<std::string>{"b3"});
  clock.Advance(absl::Minutes(2));
  CHECK(client->QuarantinedBookies().empty());
}

TEST_CASE("a quarantined bookie with healthy reports is released early",
          "[client]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);
  o.bookie_error_threshold_per_interval = 2;
  o.bookie_quarantine_time = absl::Hours(1);
  o.quarantine_release_healthy_reports = 2;
  auto client = MakeClient(o);
  DriveIntoQuarantine(client.get(), bookies, 3);
  REQUIRE(PollUntil([&] { return client->QuarantinedBookies().empty(); }));
  // Chosen again: over many draws of 3 of 4, b3 appears.
  bool chosen = false;
  for (int i = 0; i < 40 && !chosen; ++i) {
    auto w = client->CreateLedger({.ensemble_size = 3,
                                   .write_quorum = 3,
                                   .ack_quorum = 2,
                                   .password = "p"});
    REQUIRE(w.ok());
    const auto md = ReadMetadata(bookies, (*w)->ledger_id());
    for (const auto& b : md.segments(0).bookies()) {
      chosen |= b == "b3";
    }
  }
  CHECK(chosen);
}

TEST_CASE("bookies joining and leaving the registration reach placement",
          "[client]") {
  LocalBookies bookies(4);
  auto client = MakeClient(FastOptions(bookies));
  REQUIRE(client->CreateLedger({.ensemble_size = 4, .password = "p"}).ok());
  bookies.Unregister(3);
  REQUIRE(PollUntil([&] {
    return absl::IsUnavailable(
        client->CreateLedger({.ensemble_size = 4, .password = "p"}).status());
  }));
}

TEST_CASE("isolation groups tagged in the metadata store steer placement",
          "[client]") {
  LocalBookies bookies(6);
  auto store = metadata::Open(bookies.metadata_uri());
  REQUIRE(store.ok());
  for (int i : {0, 1, 2}) {
    REQUIRE((*store)
                ->WriteBookieGroups({bookies.id(i), {"tenant"}},
                                    metadata::kNotExists)
                .ok());
  }
  auto client = MakeClient(FastOptions(bookies));
  auto ensemble_of = [&](int64_t id) {
    auto md = (*store)->ReadLedger(id);
    REQUIRE(md.ok());
    const auto& b = md->value.segments(0).bookies();
    return std::vector<std::string>(b.begin(), b.end());
  };
  CreateLedgerOptions o{
      .ensemble_size = 2, .write_quorum = 2, .ack_quorum = 2, .password = "p"};
  o.custom_metadata["bookkeeperAffinityGroupPrimary"] = "tenant";
  for (int n = 0; n < 10; ++n) {
    auto w = client->CreateLedger(o);
    REQUIRE(w.ok());
    for (const std::string& b : ensemble_of((*w)->ledger_id())) {
      CHECK((b == "b0" || b == "b1" || b == "b2"));
    }
  }
  // A tag written after the client started reaches it (the next poll).
  REQUIRE(
      (*store)
          ->WriteBookieGroups({bookies.id(5), {"other"}}, metadata::kNotExists)
          .ok());
  CreateLedgerOptions other{
      .ensemble_size = 1, .write_quorum = 1, .ack_quorum = 1, .password = "p"};
  other.custom_metadata["bookkeeperAffinityGroupPrimary"] = "other";
  int64_t id = -1;
  REQUIRE(PollUntil([&] {
    auto w = client->CreateLedger(other);
    if (w.ok()) id = (*w)->ledger_id();
    return w.ok();
  }));
  CHECK(ensemble_of(id) == std::vector<std::string>{"b5"});
}

}  // namespace
}  // namespace bk::client::testing
