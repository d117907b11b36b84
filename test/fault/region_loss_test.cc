// Issue 21's live check: a whole region is lost while a region-aware writer
// runs, and no acknowledged entry is lost.
//
// Nine real bookies in three regions (bookie i at "/r<i % 3>/rack<i / 3>",
// given through each bookie's networkLocation), a real ZooKeeper, and a
// client with region-aware placement (ensemblePlacementPolicy=region-aware,
// reppMinimumRegionsForDurability=2) writing one ledger at E3/WQ3/AQ2: the
// rule puts one replica in each region, so every ack quorum spans two
// regions. Mid-stream every bookie of one region (seeded choice) is
// SIGKILLed at once. Writes must go on (two replicas still answer, and the
// dead member is replaced: reppEnableDurabilityEnforcementInReplace is off
// so the replacement may share a region, the degraded mode BookKeeper
// allows when durability cannot be kept); the writer then stops without
// closing, and a second client recover-opens the ledger and reads every
// acknowledged entry back.

#include <random>
#include <set>

#include "metadata/metadata_store.h"
#include "test/fault/acked_writer.h"
#include "test/fault/client_fault_util.h"
#include "test/fault/figures.h"
#include "test/support/poll_until.h"

namespace bk::fault {
namespace {

constexpr int kBookies = 9;
constexpr int kRegions = 3;
const std::string kItem = "21 region loss";

std::string RegionOfBookie(int i) { return "r" + std::to_string(i % kRegions); }

TEST_CASE(
    "losing every bookie of one region loses no acknowledged entry of a "
    "region-aware E3 WQ3 AQ2 writer",
    "[fault][region]") {
  std::mt19937_64 rng(Seed());
  const std::string uri = Uri("region-loss");
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_BINARY;
  o.metadata_uri = uri;
  o.bookies = kBookies;
  for (int i = 0; i < kBookies; ++i) {
    o.racks.push_back("/" + RegionOfBookie(i) + "/rack" +
                      std::to_string(i / kRegions));
  }
  o.zk_timeout_ms = 4000;
  auto started = test::BookieCluster::Start(o);
  INFO(started.status().ToString());
  REQUIRE(started.ok());
  auto& cluster = *started;
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());

  client::ClientOptions co = Options(uri);
  co.placement.region.enabled = true;
  co.placement.region.min_regions_for_durability = 2;
  co.placement.region.enforce_durability_in_replace = false;
  auto client = client::Client::Create(co);
  REQUIRE(client.ok());
  // The client sees all nine before it places.
  REQUIRE(bk::testing::PollUntil(
      [&] {
        auto set = (*store)->ListBookies();
        return set.ok() && set->writable.size() == kBookies;
      },
      absl::Seconds(30)));
  auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                    .write_quorum = 3,
                                    .ack_quorum = 2,
                                    .password = "pw"});
  INFO(w.status().ToString());
  REQUIRE(w.ok());
  const int64_t id = (*w)->ledger_id();
  auto md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  std::set<std::string> first_regions;
  for (const std::string& b : md->value.segments(0).bookies()) {
    const int i = cluster->IndexOf(b);
    REQUIRE(i >= 0);
    first_regions.insert(RegionOfBookie(i));
  }
  // The rule: one replica per region.
  CHECK(first_regions.size() == 3);

  AckedWriter writer(w->get(), id);
  auto acks = [&] { return writer.Read().acks; };

  REQUIRE(writer.Await([](const AckRecord& r) { return r.acks >= 1000; },
                       absl::Seconds(60)));
  const int lost_region =
      std::uniform_int_distribution<int>(0, kRegions - 1)(rng);
  const std::string lost = "r" + std::to_string(lost_region);
  const int64_t acks_at_kill = acks();
  for (int i = lost_region; i < kBookies; i += kRegions) {
    REQUIRE(cluster->Kill(i).ok());
  }
  std::printf("killed region %s (bk%d, bk%d, bk%d) after %lld acks\n",
              lost.c_str(), lost_region, lost_region + 3, lost_region + 6,
              static_cast<long long>(acks_at_kill));
  // Writes go on with the region gone.
  const bool went_on = writer.Await(
      [&](const AckRecord& r) { return r.acks >= acks_at_kill + 2000; },
      absl::Seconds(120));
  writer.Stop();

  md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  const int ensemble_changes = md->value.segments_size() - 1;
  bool lost_region_left = true;
  for (const std::string& b :
       md->value.segments(md->value.segments_size() - 1).bookies()) {
    const int i = cluster->IndexOf(b);
    if (i >= 0 && RegionOfBookie(i) == lost) lost_region_left = false;
  }
  const AckRecord rec = writer.Read();
  // Left OPEN, as a crashed writer would: the reader recovers it.
  w->reset();
  client->reset();
  const Verified v = VerifyAll(uri, {{id, rec.max_acked}});
  INFO(v.first_error);
  INFO(rec.first_failure);

  Figures f("region_loss");
  f.Add(kItem, "first ensemble's regions", std::to_string(first_regions.size()),
        "3", first_regions.size() == 3);
  f.Add(kItem, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked), "0",
        v.lost == 0 && v.acked > 0);
  f.Add(kItem, "corrupt payloads read", std::to_string(v.corrupt), "0",
        v.corrupt == 0);
  f.Add(kItem, "acks after the region was killed",
        went_on ? ">= 2000" : std::to_string(acks() - acks_at_kill), ">= 2000",
        went_on);
  f.Add(kItem, "ensemble changes (lost region out of the last ensemble)",
        std::to_string(ensemble_changes) +
            (lost_region_left ? ", left" : ", NOT left"),
        ">= 1, left", ensemble_changes >= 1 && lost_region_left);
  f.Add(kItem, "failed adds", std::to_string(rec.failed), "0", rec.failed == 0);
  f.Write();
  CHECK(went_on);
  CHECK(ensemble_changes >= 1);
  CHECK(lost_region_left);
  CHECK(rec.failed == 0);
  CHECK(rec.wrong_order == 0);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
  CHECK(v.open_failures == 0);
}

}  // namespace
}  // namespace bk::fault
