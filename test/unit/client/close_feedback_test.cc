// A writer's Close reaches the client's adaptive placement: the closed
// ledger's rate comes off its bookies' estimates at once. So does a writer
// that stops without a close (fenced by another client's recovery, or
// destroyed): its bookies take no more of its adds either.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test/support/clock_env.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

// 40 MiB/s over E2/WQ2: a 40 MiB/s slot on each member.
constexpr double kSlotMiB = 40;

// An adaptive client that polls its 4 bookies once, at the start, and then
// not for the test's life: no report covers a placement, so its slots
// count in full until the client hears the ledger stopped.
std::unique_ptr<Client> PolledOnceClient(const LocalBookies& bookies,
                                         Env* env = nullptr) {
  ClientOptions o = FastOptions(bookies);
  if (env != nullptr) {
    o.env = env;
    // Passes only on the test's word; short enough that the one poll's
    // reports are still usable (adaptive maxReportAge, 5 min) when it has.
    o.add_entry_timeout = absl::Minutes(1);
  }
  o.placement.weighting = placement::Weighting::kAdaptive;
  o.get_bookie_info_interval = absl::Hours(1);
  auto client = MakeClient(o);
  // That first poll answered before the ledger is placed (a report that
  // arrived after the placement would cover part of it).
  REQUIRE(PollUntil([&] {
    return Metric(*client, "bk_client_bookie_info_polls_total") >= 4;
  }));
  return client;
}

// A ledger with a kSlotMiB slot per member and two entries confirmed; its
// ensemble into `ensemble`.
std::unique_ptr<LedgerWriter> HintedLedger(const LocalBookies& bookies,
                                           Client* client,
                                           std::vector<std::string>* ensemble) {
  auto w = client->CreateLedger(
      {.ensemble_size = 2,
       .write_quorum = 2,
       .ack_quorum = 2,
       .password = "p",
       .expected_write_bytes_per_second = kSlotMiB * (1 << 20)});
  REQUIRE(w.ok());
  const proto::LedgerMetadata md = ReadMetadata(bookies, (*w)->ledger_id());
  ensemble->assign(md.segments(0).bookies().begin(),
                   md.segments(0).bookies().end());
  AppendConfirmed(w->get(), 0, 1);
  return std::move(*w);
}

// Four bookies, a PolledOnceClient and a HintedLedger on it, with the
// estimates taken right after the ledger's two entries.
struct HintedWriter {
  LocalBookies bookies{4};
  std::unique_ptr<Client> client = PolledOnceClient(bookies);
  std::vector<std::string> ensemble;
  std::unique_ptr<LedgerWriter> w =
      HintedLedger(bookies, client.get(), &ensemble);
  const std::map<std::string, double> before = client->PlacementLoadEstimates();
};

// The members' estimates counted the slot before and dropped it after; the
// other bookies' did not move.
void CheckSlotsTakenOff(const std::map<std::string, double>& before,
                        const std::map<std::string, double>& after,
                        const std::vector<std::string>& ensemble) {
  REQUIRE(before.size() == 4);
  REQUIRE(after.size() == 4);
  for (const auto& [b, load] : after) {
    INFO("bookie " << b << ": " << before.at(b) << " -> " << load);
    const bool member =
        std::find(ensemble.begin(), ensemble.end(), b) != ensemble.end();
    if (member) {
      CHECK(before.at(b) >= kSlotMiB * 0.9);
      CHECK(load <= before.at(b) - kSlotMiB * 0.9);
    } else {
      CHECK(load == Approx(before.at(b)).margin(0.5));
    }
  }
}

TEST_CASE(
    "closing a ledger with a rate hint takes its slots off its bookies' "
    "placement estimates and leaves the other bookies' alone",
    "[client][placement]") {
  HintedWriter h;
  // The writer measures its own rate after 5 s of life and closes with
  // that (a few entries: about nothing); the hint holds until then.
  REQUIRE(h.w->Close().ok());
  CheckSlotsTakenOff(h.before, h.client->PlacementLoadEstimates(), h.ensemble);
}

TEST_CASE(
    "a writer fenced by another client's recovery takes its slots off its "
    "bookies' placement estimates by the time its add fails",
    "[client][placement]") {
  HintedWriter h;
  auto recoverer = MakeClient(FastOptions(h.bookies));
  auto r = recoverer->OpenLedger(h.w->ledger_id(), "p", /*recover=*/true);
  REQUIRE(r.ok());
  auto late = h.w->Append(Payload(2));
  auto res = Get(late);
  INFO(res.status().ToString());
  REQUIRE(absl::IsFailedPrecondition(res.status()));
  // Reported before the failed add's callback ran.
  CheckSlotsTakenOff(h.before, h.client->PlacementLoadEstimates(), h.ensemble);
  // Once only: its Close, which fails, takes nothing more off.
  const std::map<std::string, double> after =
      h.client->PlacementLoadEstimates();
  CHECK(absl::IsFailedPrecondition(h.w->Close()));
  CHECK(h.client->PlacementLoadEstimates() == after);
}

TEST_CASE(
    "a writer destroyed without a close takes its slots off its bookies' "
    "placement estimates",
    "[client][placement]") {
  HintedWriter h;
  h.w.reset();
  CheckSlotsTakenOff(h.before, h.client->PlacementLoadEstimates(), h.ensemble);
}

TEST_CASE(
    "an ensemble change that cannot replace every failed bookie takes back "
    "the replacement it drew, and the failed writer's slots come off",
    "[client][placement]") {
  // Four bookies, a ledger on three: two members stop answering and time
  // out together, so one change must replace both. The first draws the
  // only spare; the second finds nobody, so no segment is written, the
  // ack quorum (3) is lost and the writer fails. The spare must not be
  // left counting a slot it never took.
  LocalBookies bookies(4);
  bk::testing::ClockEnv clock(Env::Default());
  auto client = PolledOnceClient(bookies, &clock);
  auto w = client->CreateLedger(
      {.ensemble_size = 3,
       .write_quorum = 3,
       .ack_quorum = 3,
       .password = "p",
       .expected_write_bytes_per_second = kSlotMiB * (1 << 20)});
  REQUIRE(w.ok());
  const proto::LedgerMetadata md = ReadMetadata(bookies, (*w)->ledger_id());
  const std::vector<std::string> ensemble(md.segments(0).bookies().begin(),
                                          md.segments(0).bookies().end());
  const std::map<std::string, double> before = client->PlacementLoadEstimates();
  for (int i = 0; i < 2; ++i) {
    bookies.faults(bookies.IndexOf(ensemble[i]))->drop_adds_from = 0;
  }
  auto f = (*w)->Append(Payload(0));
  clock.Advance(absl::Minutes(1) + absl::Seconds(1));
  auto res = Get(f);
  INFO(res.status().ToString());
  REQUIRE(absl::IsUnavailable(res.status()));
  CHECK(Metric(*client, "bk_client_ensemble_changes_total") == 0);
  CheckSlotsTakenOff(before, client->PlacementLoadEstimates(), ensemble);
  bookies.ReleaseAllSwallowed();
}

TEST_CASE("placement estimates are empty for other weightings",
          "[client][placement]") {
  LocalBookies bookies(2);
  auto client = MakeClient(FastOptions(bookies));
  CHECK(client->PlacementLoadEstimates().empty());
}

}  // namespace
}  // namespace bk::client::testing
