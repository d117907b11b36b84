// The placement feed (client/internal/placement_feed.h) on the in-process
// metadata store: what one client announces, another counts in its
// placement; nothing of its own, nothing from before it started, nothing
// malformed; and its announcements are gone when it is.

#include "client/internal/placement_feed.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/client_options.h"
#include "client/internal/cluster_view.h"
#include "common/env.h"
#include "metadata/layout.h"
#include "metadata/metadata_store.h"
#include "test/support/poll_until.h"
#include "test/support/test_seed.h"

namespace bk::client::internal {
namespace {

using bk::testing::PollUntil;

// One client's view of three bookies in racks of their own, polled a
// second apart, the last just now: x writes 10 MiB/s, y 12, z 14.
std::unique_ptr<ClusterView> PolledView(uint64_t seed) {
  ClientOptions options;
  options.placement.weighting = placement::Weighting::kAdaptive;
  auto view = std::make_unique<ClusterView>(options, seed, /*probe=*/nullptr);
  metadata::BookieSet set;
  for (const char* id : {"x", "y", "z"}) {
    proto::BookieServiceInfo b;
    b.set_bookie_id(id);
    b.set_grpc_endpoint("127.0.0.1:1");
    b.set_network_location(absl::StrCat("/r/rack-", id));
    set.writable.push_back(b);
  }
  view->SetBookies(set);
  const absl::Time now = absl::Now();
  for (absl::Time at : {now - absl::Seconds(1), now}) {
    for (auto [id, mib] : {std::pair{"x", 10}, {"y", 12}, {"z", 14}}) {
      proto::GetBookieInfoResponse info;
      info.set_status(proto::BK_EOK);
      info.set_free_disk_space(int64_t{1} << 40);
      info.set_journal_io_util(10);
      info.set_write_bytes_per_second(static_cast<double>(mib) * (1 << 20));
      view->OnBookieInfo(id, info, at);
    }
  }
  return view;
}

placement::LedgerHints Rate(double mib) {
  placement::LedgerHints hints;
  hints.expected_write_bytes_per_second = mib * (1 << 20);
  return hints;
}

std::unique_ptr<metadata::MetadataStore> OpenStore(const std::string& uri) {
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  return std::move(*store);
}

TEST_CASE(
    "a ledger one client announces is counted by another client's placement "
    "at once, and a client does not count its own",
    "[client][placement_feed]") {
  const uint64_t seed = bk::testing::TestSeed();
  INFO("seed " << seed);
  const std::string uri = absl::StrCat("mem://placement-feed-", seed, "-a");
  auto store_a = OpenStore(uri);
  auto store_b = OpenStore(uri);
  auto view_a = PolledView(seed);
  auto view_b = PolledView(seed + 1);
  auto control = PolledView(seed + 2);
  PlacementFeed feed_a(store_a.get(), view_a.get(), nullptr, Env::Default());
  PlacementFeed feed_b(store_b.get(), view_b.get(), nullptr, Env::Default());
  REQUIRE(PollUntil([&] { return feed_a.listening() && feed_b.listening(); }));

  // A places a 25 MiB/s ledger on x, the least loaded bookie.
  feed_a.Announce(7, {"x"}, 1, 25.0 * (1 << 20));
  REQUIRE(PollUntil([&] { return feed_b.heard() == 1; }, absl::Seconds(30)));

  // B now sees x at 35 MiB/s and places its own 25 MiB/s ledger on y; a
  // view that heard nothing still takes x.
  auto from_b = view_b->NewEnsemble(1, 1, 1, Rate(25));
  REQUIRE(from_b.ok());
  CHECK(from_b->ensemble[0] == "y");
  auto from_control = control->NewEnsemble(1, 1, 1, Rate(25));
  REQUIRE(from_control.ok());
  CHECK(from_control->ensemble[0] == "x");

  // B announces in turn; A hears B's ledger and never its own.
  feed_b.Announce(8, {"y"}, 1, 25.0 * (1 << 20));
  REQUIRE(PollUntil([&] { return feed_a.heard() == 1; }, absl::Seconds(30)));
  CHECK(feed_a.heard() == 1);
  CHECK(feed_b.heard() == 1);
}

TEST_CASE(
    "a feed reads only announcements made after it started, skips "
    "malformed ones, and deletes its own when it goes",
    "[client][placement_feed]") {
  const uint64_t seed = bk::testing::TestSeed();
  INFO("seed " << seed);
  const std::string uri = absl::StrCat("mem://placement-feed-", seed, "-b");
  auto store_a = OpenStore(uri);
  auto store_b = OpenStore(uri);
  auto view_a = PolledView(seed);
  auto view_b = PolledView(seed + 1);
  auto feed_a = std::make_unique<PlacementFeed>(store_a.get(), view_a.get(),
                                                nullptr, Env::Default());
  feed_a->Announce(1, {"x"}, 1, -1);
  REQUIRE(PollUntil([&] {
    auto children = store_b->ListChildren(metadata::kPlacementsDir);
    return children.ok() && children->size() == 1;
  }));

  // B starts after A's first announcement: that one is history.
  PlacementFeed feed_b(store_b.get(), view_b.get(), nullptr, Env::Default());
  REQUIRE(PollUntil([&] { return feed_b.listening(); }));
  // Something that is not an announcement, then a real one.
  REQUIRE(
      store_a
          ->CreateNode(absl::StrCat(metadata::kPlacementsDir, "/p-"),
                       "not a protobuf \xff\xff",
                       metadata::MetadataStore::NodeMode::kEphemeralSequential)
          .ok());
  feed_a->Announce(2, {"y", "z"}, 2, 3.0 * (1 << 20));
  REQUIRE(PollUntil([&] { return feed_b.heard() >= 1; }));
  CHECK(feed_b.heard() == 1);

  // A's two announcements are removed when its feed goes, not left for
  // their ten seconds; the malformed node stays with A's session.
  feed_a.reset();
  auto children = store_b->ListChildren(metadata::kPlacementsDir);
  REQUIRE(children.ok());
  CHECK(children->size() == 1);
}

}  // namespace
}  // namespace bk::client::internal
