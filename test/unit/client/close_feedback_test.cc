// A writer's Close reaches the client's adaptive placement: the closed
// ledger's rate comes off its bookies' estimates at once.

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

TEST_CASE(
    "closing a ledger with a rate hint takes its slots off its bookies' "
    "placement estimates and leaves the other bookies' alone",
    "[client][placement]") {
  LocalBookies bookies(4);
  ClientOptions o = FastOptions(bookies);
  o.placement.weighting = placement::Weighting::kAdaptive;
  // One poll at the start, then none for the test's life: no report
  // covers the placement, so its slots count in full until the close.
  o.get_bookie_info_interval = absl::Hours(1);
  auto client = MakeClient(o);
  // That first poll answered before the ledger is placed (a report that
  // arrived after the placement would cover part of it).
  REQUIRE(PollUntil([&] {
    return Metric(*client, "bk_client_bookie_info_polls_total") >= 4;
  }));

  // 40 MiB/s over E2/WQ2: a 40 MiB/s slot on each member.
  constexpr double kSlotMiB = 40;
  auto w = client->CreateLedger(
      {.ensemble_size = 2,
       .write_quorum = 2,
       .ack_quorum = 2,
       .password = "p",
       .expected_write_bytes_per_second = kSlotMiB * (1 << 20)});
  REQUIRE(w.ok());
  const proto::LedgerMetadata md = ReadMetadata(bookies, (*w)->ledger_id());
  const std::vector<std::string> ensemble(md.segments(0).bookies().begin(),
                                          md.segments(0).bookies().end());
  AppendConfirmed(w->get(), 0, 2);

  const std::map<std::string, double> before = client->PlacementLoadEstimates();
  REQUIRE(before.size() == 4);
  for (const std::string& b : ensemble) {
    INFO("member " << b);
    CHECK(before.at(b) >= kSlotMiB * 0.9);
  }
  // The writer measures its own rate after 5 s of life and closes with
  // that (a few entries: about nothing); the hint holds until then.
  REQUIRE((*w)->Close().ok());

  const std::map<std::string, double> after = client->PlacementLoadEstimates();
  for (const auto& [b, load] : after) {
    INFO("bookie " << b << ": " << before.at(b) << " -> " << load);
    const bool member =
        std::find(ensemble.begin(), ensemble.end(), b) != ensemble.end();
    if (member) {
      CHECK(load <= before.at(b) - kSlotMiB * 0.9);
    } else {
      CHECK(load == Approx(before.at(b)).margin(0.5));
    }
  }
}

TEST_CASE("placement estimates are empty for other weightings",
          "[client][placement]") {
  LocalBookies bookies(2);
  auto client = MakeClient(FastOptions(bookies));
  CHECK(client->PlacementLoadEstimates().empty());
}

}  // namespace
}  // namespace bk::client::testing
