// A gray failure: a bookie that answers, slowly. Its every journal sync
// takes seconds (testingSyncDelayMs of bookie_testing, a real process); a
// writer at AQ == WQ, whose every add waits for it, replaces it once the
// rest of the write quorum has answered addEntryLagTimeoutMs before it
// (client/client_options.h) -- not after the add timeout, which here is an
// hour, so the writer goes on only through the lag rule. Nothing
// acknowledged is lost.

#include <random>

#include "metadata/metadata_store.h"
#include "prometheus/registry.h"
#include "test/fault/acked_writer.h"
#include "test/fault/client_fault_util.h"
#include "test/fault/figures.h"
#include "test/support/poll_until.h"

namespace bk::fault {
namespace {

constexpr int kBookies = 4;
const std::string kItem = "23 gray failure";

double Counter(client::Client& c, const std::string& name) {
  for (const auto& family : c.metrics_registry()->Collect()) {
    if (family.name != name) continue;
    double sum = 0;
    for (const auto& m : family.metric) sum += m.counter.value;
    return sum;
  }
  return -1;
}

TEST_CASE(
    "a bookie whose syncs take seconds is replaced by an AQ == WQ writer "
    "after addEntryLagTimeoutMs, long before the add timeout",
    "[fault][gray]") {
  std::mt19937_64 rng(Seed());
  const std::string uri = Uri("gray-failure");
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_TESTING_BINARY;
  o.metadata_uri = uri;
  o.bookies = kBookies;
  o.racks = {"/region/rack0", "/region/rack1"};
  auto started = test::BookieCluster::Start(o);
  INFO(started.status().ToString());
  REQUIRE(started.ok());
  auto& cluster = *started;
  const int slow = std::uniform_int_distribution<int>(0, kBookies - 1)(rng);
  const std::string slow_id = cluster->id(slow);
  std::printf("slow bookie: %s (every sync +3 s)\n", slow_id.c_str());
  REQUIRE(cluster->Restart(slow, {"--testingSyncDelayMs=3000"}).ok());
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  REQUIRE(bk::testing::PollUntil(
      [&] {
        auto set = (*store)->ListBookies();
        return set.ok() && set->writable.size() == kBookies;
      },
      absl::Seconds(30)));

  client::ClientOptions co = Options(uri);
  co.add_entry_timeout = absl::Hours(1);
  co.add_entry_lag_timeout = absl::Seconds(1);
  co.placement.weighting = placement::Weighting::kNone;  // may pick it
  auto client = client::Client::Create(co);
  REQUIRE(client.ok());
  // Ledgers until one has the slow bookie (each does with p = 3/4).
  std::unique_ptr<client::LedgerWriter> w;
  for (int attempt = 0; attempt < 32 && w == nullptr; ++attempt) {
    auto made = (*client)->CreateLedger({.ensemble_size = 3,
                                         .write_quorum = 3,
                                         .ack_quorum = 3,
                                         .password = "pw"});
    REQUIRE(made.ok());
    auto md = (*store)->ReadLedger((*made)->ledger_id());
    REQUIRE(md.ok());
    const auto& first = md->value.segments(0).bookies();
    if (std::find(first.begin(), first.end(), slow_id) != first.end()) {
      w = std::move(*made);
    } else {
      REQUIRE((*made)->Close().ok());
    }
  }
  REQUIRE(w != nullptr);
  const int64_t id = w->ledger_id();

  AckedWriter writer(w.get(), id);
  // Without the lag rule nothing is acknowledged for an hour.
  const bool went_on = writer.Await(
      [](const AckRecord& r) { return r.acks >= 2000; }, absl::Seconds(60));
  writer.Stop();
  const AckRecord rec = writer.Read();
  const double lagging = Counter(**client, "bk_client_lagging_bookies_total");
  const double changes = Counter(**client, "bk_client_ensemble_changes_total");
  auto md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  const auto& last =
      md->value.segments(md->value.segments_size() - 1).bookies();
  const bool slow_left =
      std::find(last.begin(), last.end(), slow_id) == last.end();
  REQUIRE(w->Close().ok());
  w.reset();
  client->reset();
  const Verified v = VerifyAll(uri, {{id, rec.max_acked}});
  INFO(v.first_error);
  INFO(rec.first_failure);

  Figures f("gray_failure");
  f.Add(kItem, "acks with the slow bookie in the first ensemble (60 s bound)",
        std::to_string(rec.acks), ">= 2000", went_on);
  f.Add(kItem, "bookies replaced for lag (bk_client_lagging_bookies_total)",
        std::to_string(static_cast<int>(lagging)), ">= 1", lagging >= 1);
  f.Add(kItem, "slow bookie out of the last ensemble", slow_left ? "yes" : "no",
        "yes", slow_left);
  f.Add(kItem, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked), "0",
        v.lost == 0 && v.acked > 0);
  f.Add(kItem, "failed adds", std::to_string(rec.failed), "0", rec.failed == 0);
  f.Write();
  CHECK(went_on);
  CHECK(lagging >= 1);
  // An ensemble change before the first confirmation rewrites the first
  // segment instead of adding one: counted, not read from the segments.
  CHECK(changes >= 1);
  CHECK(slow_left);
  CHECK(rec.failed == 0);
  CHECK(rec.wrong_order == 0);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
  CHECK(v.open_failures == 0);
}

}  // namespace
}  // namespace bk::fault
