// A placement the metadata store refuses never happened, so the client's
// adaptive placement must not keep counting it: a CreateLedger whose
// metadata create fails withdraws the ensemble it drew, and an ensemble
// change whose compare-and-set fails takes back the replacements it drew.
// The store's failures come from a FaultyMetadataStore under the client.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "test/unit/client/faulty_metadata_store.h"
#include "test/unit/client/placement_estimates.h"
#include "test/unit/client/test_util.h"

namespace bk::client::testing {
namespace {

absl::Status StoreDown() {
  return absl::UnavailableError("metadata store down (injected)");
}

// `o` with its client's metadata store under a FaultyMetadataStore, which
// goes into *store (valid while the client lives).
ClientOptions WithFaultyStore(ClientOptions o, FaultyMetadataStore** store) {
  o.wrap_metadata_store = [store](std::unique_ptr<metadata::MetadataStore> t) {
    auto faulty = std::make_unique<FaultyMetadataStore>(std::move(t));
    *store = faulty.get();
    return faulty;
  };
  return o;
}

// The one bookie of `bookies` outside `ensemble`.
std::string TheSpare(const LocalBookies& bookies,
                     const std::vector<std::string>& ensemble) {
  std::vector<std::string> spares;
  for (int i = 0; i < bookies.size(); ++i) {
    if (std::find(ensemble.begin(), ensemble.end(), bookies.id(i)) ==
        ensemble.end()) {
      spares.push_back(bookies.id(i));
    }
  }
  REQUIRE(spares.size() == 1);
  return spares[0];
}

// Four bookies, a PolledOnceClient over a FaultyMetadataStore, and a
// HintedLedger on three of them (WQ = AQ = 3): when a member fails, the
// one spare is the only replacement there is.
struct ChangingWriter {
  LocalBookies bookies{4};
  FaultyMetadataStore* store = nullptr;
  std::unique_ptr<Client> client = PolledOnceClient(
      bookies, WithFaultyStore(PolledOnceOptions(bookies), &store));
  std::vector<std::string> ensemble;
  std::unique_ptr<LedgerWriter> w =
      HintedLedger(bookies, client.get(), &ensemble, /*ensemble_size=*/3);
  const std::string spare = TheSpare(bookies, ensemble);
  const std::map<std::string, double> before = client->PlacementLoadEstimates();

  // Makes ensemble[0] answer EIO to entry 2 and on, and appends entry 2,
  // which then needs an ensemble change; its result.
  absl::StatusOr<int64_t> AppendAfterMemberFails() {
    bookies.faults(bookies.IndexOf(ensemble[0]))->fail_adds_from = 2;
    auto f = w->Append(Payload(2));
    return Get(f);
  }
};

TEST_CASE(
    "a CreateLedger whose metadata create fails returns the store's error "
    "and leaves every bookie's placement estimate as it was",
    "[client][placement]") {
  LocalBookies bookies(4);
  FaultyMetadataStore* store = nullptr;
  auto client = PolledOnceClient(
      bookies, WithFaultyStore(PolledOnceOptions(bookies), &store));
  const std::map<std::string, double> before = client->PlacementLoadEstimates();
  REQUIRE(before.size() == 4);

  store->FailCreates(1, StoreDown());
  auto w = client->CreateLedger(
      {.ensemble_size = 2,
       .write_quorum = 2,
       .ack_quorum = 2,
       .password = "p",
       .expected_write_bytes_per_second = kSlotMiB * (1 << 20)});
  REQUIRE_FALSE(w.ok());
  INFO(w.status().ToString());
  CHECK(absl::IsUnavailable(w.status()));
  // The store's own words, after the id of the ledger that was not made.
  CHECK(absl::StartsWith(w.status().message(), "ledger "));
  CHECK(absl::StrContains(w.status().message(), StoreDown().message()));
  CHECK(store->failed_creates() == 1);
  auto ledgers = client->ListLedgers();
  REQUIRE(ledgers.ok());
  CHECK(ledgers->empty());

  const std::map<std::string, double> after = client->PlacementLoadEstimates();
  REQUIRE(after.size() == 4);
  for (const auto& [b, load] : after) {
    INFO("bookie " << b << ": " << before.at(b) << " -> " << load);
    CHECK(load == Approx(before.at(b)).margin(0.5));
  }

  // The control: the same ledger, once the store takes it, counts a slot
  // on each of its bookies.
  std::vector<std::string> ensemble;
  auto created = HintedLedger(bookies, client.get(), &ensemble);
  const std::map<std::string, double> placed = client->PlacementLoadEstimates();
  for (const std::string& b : ensemble) {
    INFO("member " << b << ": " << after.at(b) << " -> " << placed.at(b));
    CHECK(placed.at(b) >= after.at(b) + kSlotMiB * 0.9);
  }
}

TEST_CASE(
    "an ensemble change whose metadata compare-and-set fails takes back the "
    "replacement it drew, so the spare's placement estimate does not move",
    "[client][placement]") {
  ChangingWriter c;
  c.store->FailCompareAndSets(1, StoreDown());
  auto res = c.AppendAfterMemberFails();
  INFO(res.status().ToString());
  // The writer fails with the store's error: the change drew the spare
  // and reached the compare-and-set (rather than finding no replacement).
  REQUIRE(absl::IsUnavailable(res.status()));
  REQUIRE(c.store->failed_compare_and_sets() == 1);
  CHECK(Metric(*c.client, "bk_client_ensemble_changes_total") == 0);
  const proto::LedgerMetadata md = ReadMetadata(c.bookies, c.w->ledger_id());
  REQUIRE(md.segments_size() == 1);
  CHECK(std::vector<std::string>(md.segments(0).bookies().begin(),
                                 md.segments(0).bookies().end()) == c.ensemble);
  // The failed writer's slots come off its members; the spare, which never
  // took the ledger, is where it was.
  CheckSlotsTakenOff(c.before, c.client->PlacementLoadEstimates(), c.ensemble);
}

TEST_CASE(
    "an ensemble change whose metadata compare-and-set succeeds moves the "
    "failed bookie's slot to the spare's placement estimate",
    "[client][placement]") {
  ChangingWriter c;
  auto res = c.AppendAfterMemberFails();
  INFO(res.status().ToString());
  REQUIRE(res.ok());
  CHECK(*res == 2);
  CHECK(Metric(*c.client, "bk_client_ensemble_changes_total") == 1);
  const proto::LedgerMetadata md = ReadMetadata(c.bookies, c.w->ledger_id());
  const auto& last = md.segments(md.segments_size() - 1);
  CHECK(last.bookies(0) == c.spare);

  const std::map<std::string, double> after =
      c.client->PlacementLoadEstimates();
  const std::string& failed = c.ensemble[0];
  INFO("failed " << failed << ": " << c.before.at(failed) << " -> "
                 << after.at(failed) << "; spare " << c.spare << ": "
                 << c.before.at(c.spare) << " -> " << after.at(c.spare));
  CHECK(after.at(c.spare) >= c.before.at(c.spare) + kSlotMiB * 0.9);
  CHECK(after.at(failed) <= c.before.at(failed) - kSlotMiB * 0.9);
  for (int i = 1; i < 3; ++i) {
    const std::string& b = c.ensemble[i];
    CHECK(after.at(b) == Approx(c.before.at(b)).margin(0.5));
  }
  CHECK(c.w->Close().ok());
}

}  // namespace
}  // namespace bk::client::testing
