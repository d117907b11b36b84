// The placement feed between real clients on a real ZooKeeper server, with
// real bookie processes: what one adaptive client creates, another client
// polling every second hears at once; a client polling slowly or with the
// feed turned off neither announces nor hears; a writer's ensemble change
// and close are announced and heard too; and a client's announcements are
// gone from <root>/placements when it is.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/ledger_writer.h"
#include "metadata/layout.h"
#include "metadata/metadata_store.h"
#include "prometheus/registry.h"
#include "test/support/bookie_cluster.h"
#include "test/support/labelled_counter.h"
#include "test/support/poll_until.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::client {
namespace {

uint64_t Seed() { return bk::testing::TestSeed(); }

// bk_client_placement_feed_total{event=...}; -1 when absent.
double Feed(const Client& client, const std::string& event) {
  return bk::testing::LabelledCounter(*client.metrics_registry(),
                                      "bk_client_placement_feed_total", "event",
                                      event);
}

ClientOptions Adaptive(const std::string& uri, uint64_t seed,
                       absl::Duration poll) {
  ClientOptions o;
  o.metadata_service_uri = uri;
  o.seed = seed;
  o.placement.weighting = placement::Weighting::kAdaptive;
  o.get_bookie_info_interval = poll;
  return o;
}

TEST_CASE(
    "placement feed: ledgers one client creates are heard by another that "
    "polls every second, and by no client that does not share",
    "[integration][client]") {
  INFO("seed " << Seed());
  const std::string uri =
      "zk://" + test::SharedZkServer().hosts() + "/client-it/feed";
  test::BookieCluster::Options co;
  co.bookie_binary = BK_BOOKIE_BINARY;
  co.metadata_uri = uri;
  co.bookies = 3;
  co.racks = {"/region/rack0", "/region/rack1", "/region/rack2"};
  auto cluster = test::BookieCluster::Start(co);
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());

  // 1 s polls with 20 % jitter: within the 2 s least-loaded report age,
  // so both share.
  auto a = Client::Create(Adaptive(uri, Seed(), absl::Seconds(1)));
  REQUIRE(a.ok());
  auto b = Client::Create(Adaptive(uri, Seed() + 1, absl::Seconds(1)));
  REQUIRE(b.ok());
  // 5 s polls: no feed. Nor with the feed turned off.
  auto slow = Client::Create(Adaptive(uri, Seed() + 2, absl::Seconds(5)));
  REQUIRE(slow.ok());
  ClientOptions off_options = Adaptive(uri, Seed() + 3, absl::Seconds(1));
  off_options.placement.adaptive.share_new_ledgers = false;
  auto off = Client::Create(off_options);
  REQUIRE(off.ok());
  CHECK(Feed(**a, "announced") == 0);
  CHECK(Feed(**a, "heard") == 0);

  // b's feed has taken its first list once a's first announcement is
  // heard; what came before that list is history to it. So announce until
  // b hears, then count from there (announcements of the loop still on
  // their way may add to what b hears, never to more than a announced).
  std::vector<std::unique_ptr<LedgerWriter>> writers;
  const auto create = [&](Client& c) {
    auto w = c.CreateLedger({.ensemble_size = 2,
                             .write_quorum = 2,
                             .ack_quorum = 2,
                             .password = "pw",
                             .expected_write_bytes_per_second = 1 << 20});
    REQUIRE(w.ok());
    writers.push_back(std::move(*w));
  };
  REQUIRE(bk::testing::PollUntil([&] {
    create(**a);
    return Feed(**b, "heard") >= 1;
  }));
  const double heard = Feed(**b, "heard");
  for (int i = 0; i < 3; ++i) create(**a);
  REQUIRE(bk::testing::PollUntil([&] {
    return Feed(**a, "announced") == static_cast<double>(writers.size());
  }));
  REQUIRE(
      bk::testing::PollUntil([&] { return Feed(**b, "heard") >= heard + 3; }));
  CHECK(Feed(**b, "heard") <= Feed(**a, "announced"));
  // a does not hear its own; the others have no feed at all.
  CHECK(Feed(**a, "heard") == 0);
  CHECK(Feed(**a, "failed") == 0);
  CHECK(Feed(**b, "failed") == 0);
  for (auto* c : {&*slow, &*off}) {
    CHECK(Feed(**c, "announced") == 0);
    CHECK(Feed(**c, "heard") == 0);
  }

  // a's announcements go with it, before their ten seconds are up.
  for (auto& w : writers) REQUIRE(w->Close().ok());
  writers.clear();
  a->reset();
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  auto children = (*store)->ListChildren(metadata::kPlacementsDir);
  REQUIRE(children.ok());
  CHECK(children->empty());
}

TEST_CASE(
    "placement feed: a writer's ensemble change and its close are announced "
    "and heard by another client that polls every second",
    "[integration][client]") {
  INFO("seed " << Seed());
  const std::string uri =
      "zk://" + test::SharedZkServer().hosts() + "/client-it/feed-close";
  test::BookieCluster::Options co;
  co.bookie_binary = BK_BOOKIE_BINARY;
  co.metadata_uri = uri;
  co.bookies = 3;
  co.racks = {"/region/rack0", "/region/rack1", "/region/rack2"};
  auto cluster = test::BookieCluster::Start(co);
  INFO(cluster.status().ToString());
  REQUIRE(cluster.ok());

  ClientOptions a_options = Adaptive(uri, Seed(), absl::Seconds(1));
  a_options.add_entry_timeout = absl::Seconds(5);
  auto a = Client::Create(a_options);
  REQUIRE(a.ok());
  auto b = Client::Create(Adaptive(uri, Seed() + 1, absl::Seconds(1)));
  REQUIRE(b.ok());

  // As above: create until b hears, so that b's feed is listening.
  std::vector<std::unique_ptr<LedgerWriter>> writers;
  REQUIRE(bk::testing::PollUntil([&] {
    auto w = (*a)->CreateLedger({.ensemble_size = 2,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "pw",
                                 .expected_write_bytes_per_second = 1 << 20});
    REQUIRE(w.ok());
    writers.push_back(std::move(*w));
    return Feed(**b, "heard") >= 1;
  }));
  const double created = static_cast<double>(writers.size());
  REQUIRE(bk::testing::PollUntil(
      [&] { return Feed(**a, "announced") == created; }));
  const double heard = Feed(**b, "heard");

  // The last ledger loses a member: the writer replaces it with the third
  // bookie and announces the change.
  LedgerWriter& w = *writers.back();
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  auto md = (*store)->ReadLedger(w.ledger_id());
  REQUIRE(md.ok());
  const std::string lost = md->value.segments(0).bookies(0);
  REQUIRE((*cluster)->Kill((*cluster)->IndexOf(lost)).ok());
  auto added = w.Append(std::string("after the loss"));
  REQUIRE(added.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  REQUIRE(added.get().ok());
  md = (*store)->ReadLedger(w.ledger_id());
  REQUIRE(md.ok());
  // No entry was confirmed before: the change rewrites the one segment.
  const auto& last = md->value.segments(md->value.segments_size() - 1);
  REQUIRE(std::find(last.bookies().begin(), last.bookies().end(), lost) ==
          last.bookies().end());
  REQUIRE(bk::testing::PollUntil(
      [&] { return Feed(**a, "announced") == created + 1; }));

  // Its close is announced too.
  REQUIRE(w.Close().ok());
  REQUIRE(bk::testing::PollUntil(
      [&] { return Feed(**a, "announced") == created + 2; }));
  REQUIRE(
      bk::testing::PollUntil([&] { return Feed(**b, "heard") >= heard + 2; }));
  CHECK(Feed(**b, "heard") <= Feed(**a, "announced"));
  CHECK(Feed(**a, "heard") == 0);
  CHECK(Feed(**a, "failed") == 0);
  CHECK(Feed(**b, "failed") == 0);
  writers.clear();
}

}  // namespace
}  // namespace bk::client
