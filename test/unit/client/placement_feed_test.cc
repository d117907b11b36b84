// The placement feed (client/internal/placement_feed.h) on the in-process
// metadata store: what one client announces, another counts in its
// placement; closes and ensemble changes move the other client's
// estimates back; nothing of its own, nothing from before it started,
// nothing malformed, no kind it does not know; and its announcements are
// gone when it is.

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
#include "proto/metadata.pb.h"
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

TEST_CASE(
    "a close and an ensemble change one client announces move another "
    "client's estimates as its own would",
    "[client][placement_feed]") {
  const uint64_t seed = bk::testing::TestSeed();
  INFO("seed " << seed);
  const std::string uri = absl::StrCat("mem://placement-feed-", seed, "-c");
  auto store_a = OpenStore(uri);
  auto store_b = OpenStore(uri);
  auto view_a = PolledView(seed);
  auto view_b = PolledView(seed + 1);
  PlacementFeed feed_a(store_a.get(), view_a.get(), nullptr, Env::Default());
  PlacementFeed feed_b(store_b.get(), view_b.get(), nullptr, Env::Default());
  REQUIRE(PollUntil([&] { return feed_a.listening() && feed_b.listening(); }));
  auto load = [&](const std::string& id) {
    return view_b->EstimatedLoads().at(id);
  };
  REQUIRE(load("x") == Approx(10).margin(0.01));

  // A places a 25 MiB/s ledger on x, moves it to y, then closes it.
  const double rate = 25.0 * (1 << 20);
  feed_a.Announce(7, {"x"}, 1, rate);
  REQUIRE(PollUntil([&] { return feed_b.heard() == 1; }, absl::Seconds(30)));
  CHECK(load("x") == Approx(35).margin(0.01));
  feed_a.AnnounceReplaced(7, {"y"}, "x", "y", 1, rate);
  REQUIRE(PollUntil([&] { return feed_b.heard() == 2; }, absl::Seconds(30)));
  CHECK(load("x") == Approx(10).margin(0.01));
  CHECK(load("y") == Approx(37).margin(0.01));
  feed_a.AnnounceClosed(7, {"y"}, 1, rate);
  REQUIRE(PollUntil([&] { return feed_b.heard() == 3; }, absl::Seconds(30)));
  CHECK(load("y") == Approx(12).margin(0.01));
  CHECK(load("z") == Approx(14).margin(0.01));

  // A's own policy heard none of it.
  CHECK(feed_a.heard() == 0);
  CHECK(view_a->EstimatedLoads().at("x") == Approx(10).margin(0.01));
}

TEST_CASE(
    "a close or an ensemble change leaves the ensemble field older readers "
    "take as a new ledger empty, and a kind the reader does not know is "
    "ignored",
    "[client][placement_feed]") {
  const uint64_t seed = bk::testing::TestSeed();
  INFO("seed " << seed);
  const std::string uri = absl::StrCat("mem://placement-feed-", seed, "-d");
  auto store_a = OpenStore(uri);
  auto store_b = OpenStore(uri);
  auto view_a = PolledView(seed);
  auto view_b = PolledView(seed + 1);
  PlacementFeed feed_a(store_a.get(), view_a.get(), nullptr, Env::Default());
  PlacementFeed feed_b(store_b.get(), view_b.get(), nullptr, Env::Default());
  REQUIRE(PollUntil([&] { return feed_a.listening() && feed_b.listening(); }));

  // Closes and changes without a rate would change nothing: not written.
  feed_a.AnnounceClosed(1, {"x"}, 1, -1);
  feed_a.AnnounceReplaced(1, {"y"}, "x", "y", 1, -1);
  feed_a.AnnounceClosed(1, {"x", "z"}, 2, 3.0 * (1 << 20));
  feed_a.AnnounceReplaced(1, {"y", "z"}, "x", "y", 2, 3.0 * (1 << 20));
  REQUIRE(PollUntil([&] { return feed_b.heard() == 2; }, absl::Seconds(30)));
  auto names = store_b->ListChildren(metadata::kPlacementsDir);
  REQUIRE(names.ok());
  REQUIRE(names->size() == 2);
  for (const std::string& name : *names) {
    auto node =
        store_b->ReadNode(absl::StrCat(metadata::kPlacementsDir, "/", name));
    REQUIRE(node.ok());
    proto::PlacementAnnouncement a;
    REQUIRE(a.ParseFromString(node->value));
    INFO(a.ShortDebugString());
    // A reader from before `kind` rejects an announcement without bookies.
    CHECK(a.bookies_size() == 0);
    CHECK(a.ensemble_size() == 2);
    CHECK(a.kind() != proto::PlacementAnnouncement::NEW_LEDGER);
  }

  // A later kind: neither applied nor a failure; what follows is heard.
  const double x_before = view_b->EstimatedLoads().at("x");
  proto::PlacementAnnouncement later;
  later.set_origin("someone else");
  later.set_kind(static_cast<proto::PlacementAnnouncement::Kind>(42));
  later.add_ensemble("x");
  later.set_write_quorum_size(1);
  later.set_expected_write_bytes_per_second(100.0 * (1 << 20));
  REQUIRE(
      store_a
          ->CreateNode(absl::StrCat(metadata::kPlacementsDir, "/p-"),
                       later.SerializeAsString(),
                       metadata::MetadataStore::NodeMode::kEphemeralSequential)
          .ok());
  feed_a.Announce(2, {"z"}, 1, 3.0 * (1 << 20));
  REQUIRE(PollUntil([&] { return feed_b.heard() == 3; }, absl::Seconds(30)));
  CHECK(feed_b.heard() == 3);
  CHECK(view_b->EstimatedLoads().at("x") == Approx(x_before).margin(0.01));
}

}  // namespace
}  // namespace bk::client::internal
