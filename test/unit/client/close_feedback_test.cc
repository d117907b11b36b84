// A writer's Close reaches the client's adaptive placement: the closed
// ledger's rate comes off its bookies' estimates at once. So does a writer
// that stops without a close (fenced by another client's recovery, or
// destroyed): its bookies take no more of its adds either.

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test/support/clock_env.h"
#include "test/unit/client/placement_estimates.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

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
