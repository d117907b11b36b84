// Fixtures of the tests that watch a client's adaptive placement estimates
// (Client::PlacementLoadEstimates): a client whose estimates move only with
// its own placements, a ledger that puts a known slot on each of its
// bookies, and the checks of what a slot did.

#ifndef BK_TEST_UNIT_CLIENT_PLACEMENT_ESTIMATES_H_
#define BK_TEST_UNIT_CLIENT_PLACEMENT_ESTIMATES_H_

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "test/unit/client/test_util.h"

namespace bk::client::testing {

// 40 MiB/s over E = WQ: a 40 MiB/s slot on each member.
inline constexpr double kSlotMiB = 40;

// An adaptive client that polls its bookies once, at the start, and then
// not for the test's life: no report covers a placement, so its slots
// count in full until the client hears the ledger stopped. With `env`, add
// timeouts pass only on the test's word (ClockEnv::Advance).
inline ClientOptions PolledOnceOptions(const LocalBookies& bookies,
                                       Env* env = nullptr) {
  ClientOptions o = FastOptions(bookies);
  if (env != nullptr) {
    o.env = env;
    // Short enough that the one poll's reports are still usable (adaptive
    // maxReportAge, 5 min) when the test has let it pass.
    o.add_entry_timeout = absl::Minutes(1);
  }
  o.placement.weighting = placement::Weighting::kAdaptive;
  o.get_bookie_info_interval = absl::Hours(1);
  return o;
}

// A client on `o` (PolledOnceOptions and changes) once its first poll has
// answered from every bookie, before any ledger is placed (a report that
// arrived after a placement would cover part of it).
inline std::unique_ptr<Client> PolledOnceClient(const LocalBookies& bookies,
                                                const ClientOptions& o) {
  auto client = MakeClient(o);
  REQUIRE(PollUntil([&] {
    return Metric(*client, "bk_client_bookie_info_polls_total") >=
           bookies.size();
  }));
  return client;
}

inline std::unique_ptr<Client> PolledOnceClient(const LocalBookies& bookies,
                                                Env* env = nullptr) {
  return PolledOnceClient(bookies, PolledOnceOptions(bookies, env));
}

// A ledger on `ensemble_size` bookies (WQ = AQ = E) with a kSlotMiB slot
// per member and entries 0 and 1 confirmed; its ensemble into `ensemble`.
inline std::unique_ptr<LedgerWriter> HintedLedger(
    const LocalBookies& bookies, Client* client,
    std::vector<std::string>* ensemble, int ensemble_size = 2) {
  auto w = client->CreateLedger(
      {.ensemble_size = ensemble_size,
       .write_quorum = ensemble_size,
       .ack_quorum = ensemble_size,
       .password = "p",
       .expected_write_bytes_per_second = kSlotMiB * (1 << 20)});
  REQUIRE(w.ok());
  const proto::LedgerMetadata md = ReadMetadata(bookies, (*w)->ledger_id());
  ensemble->assign(md.segments(0).bookies().begin(),
                   md.segments(0).bookies().end());
  AppendConfirmed(w->get(), 0, 1);
  return std::move(*w);
}

// The members' estimates counted the slot before and dropped it after; the
// other bookies' did not move.
inline void CheckSlotsTakenOff(const std::map<std::string, double>& before,
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

}  // namespace bk::client::testing

#endif  // BK_TEST_UNIT_CLIENT_PLACEMENT_ESTIMATES_H_
