#include "client/internal/placement_feed.h"

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "common/env.h"
#include "common/logging.h"
#include "metadata/layout.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {
namespace {

// An identifier, not an algorithm's input: an unseeded generator is right
// (two clients given the same seed must still tell themselves apart).
std::string MakeOrigin() {
  absl::BitGen gen;
  std::string origin(16, '\0');
  for (char& c : origin) c = static_cast<char>(absl::Uniform<uint8_t>(gen));
  return origin;
}

std::string Dir() { return metadata::kPlacementsDir; }

}  // namespace

PlacementFeed::PlacementFeed(metadata::MetadataStore* store,
                             ClusterView* cluster, ClientProbe* probe,
                             Env* clock)
    : store_(store),
      cluster_(cluster),
      probe_(probe),
      clock_(clock),
      origin_(MakeOrigin()) {
  watch_ = store_->WatchChildren(
      Dir(), [this](absl::StatusOr<std::vector<std::string>> names) {
        OnChildren(std::move(names));
      });
}

PlacementFeed::~PlacementFeed() {
  watch_.reset();
  // Runs the delayed deletes at once.
  writer_.Shutdown();
}

void PlacementFeed::Announce(int64_t ledger_id,
                             const std::vector<std::string>& ensemble,
                             int write_quorum,
                             double expected_write_bytes_per_second) {
  proto::PlacementAnnouncement a;
  a.set_origin(origin_);
  a.set_ledger_id(ledger_id);
  for (const std::string& b : ensemble) a.add_bookies(b);
  a.set_write_quorum_size(write_quorum);
  a.set_expected_write_bytes_per_second(expected_write_bytes_per_second >= 0
                                            ? expected_write_bytes_per_second
                                            : -1);
  a.set_ctime_ms(absl::ToUnixMillis(clock_->Now()));
  writer_.Post([this, data = a.SerializeAsString()] { Write(data); });
}

void PlacementFeed::Write(const std::string& data) {
  absl::StatusOr<std::string> path = store_->CreateNode(
      absl::StrCat(Dir(), "/p-"), data,
      metadata::MetadataStore::NodeMode::kEphemeralSequential);
  if (!path.ok()) {
    if (probe_) probe_->FeedFailed();
    bk::log::Get("client")->warn("placement feed: cannot announce: {}",
                                 std::string(path.status().message()));
    return;
  }
  if (probe_) probe_->FeedAnnounced();
  writer_.PostAfter(kAnnouncementLife, [this, p = *std::move(path)] {
    absl::Status s = store_->DeleteNode(p, metadata::kAnyVersion);
    // Gone already: the session that made it ended.
    if (!s.ok() && !absl::IsNotFound(s)) {
      if (probe_) probe_->FeedFailed();
      bk::log::Get("client")->warn("placement feed: cannot delete {}: {}", p,
                                   std::string(s.message()));
    }
  });
}

void PlacementFeed::OnChildren(absl::StatusOr<std::vector<std::string>> names) {
  std::vector<std::string> fresh;
  {
    absl::MutexLock l(&mu_);
    if (!names.ok()) {
      // No placements/ yet: whatever appears later is new.
      if (absl::IsNotFound(names.status())) listed_ = true;
      return;
    }
    // Sequential names sort in creation order ("p-" and ten digits).
    std::vector<std::string>& all = *names;
    if (!listed_) {
      listed_ = true;
      if (!all.empty()) newest_seen_ = all.back();
      return;
    }
    auto first = std::upper_bound(all.begin(), all.end(), newest_seen_);
    if (first == all.end()) return;
    newest_seen_ = all.back();
    if (all.end() - first > kMaxReadsPerChange) {
      first = all.end() - kMaxReadsPerChange;
    }
    fresh.assign(first, all.end());
  }
  for (const std::string& name : fresh) Hear(name);
}

void PlacementFeed::Hear(const std::string& name) {
  absl::StatusOr<metadata::Versioned<std::string>> node =
      store_->ReadNode(absl::StrCat(Dir(), "/", name));
  if (!node.ok()) {
    // Deleted before it was read (its life is over, or its session ended).
    if (!absl::IsNotFound(node.status()) && probe_) probe_->FeedFailed();
    return;
  }
  proto::PlacementAnnouncement a;
  if (!a.ParseFromString(node->value) || a.bookies_size() == 0 ||
      a.write_quorum_size() < 1 || a.write_quorum_size() > a.bookies_size()) {
    if (probe_) probe_->FeedFailed();
    bk::log::Get("client")->warn(
        "placement feed: {} is not a placement announcement", name);
    return;
  }
  if (a.origin() == origin_) return;
  placement::LedgerHints hints;
  hints.expected_write_bytes_per_second =
      a.expected_write_bytes_per_second() >= 0
          ? a.expected_write_bytes_per_second()
          : -1;
  cluster_->OnPlacedElsewhere(
      std::vector<std::string>(a.bookies().begin(), a.bookies().end()),
      a.write_quorum_size(), hints);
  if (probe_) probe_->FeedHeard();
  absl::MutexLock l(&mu_);
  ++heard_;
}

bool PlacementFeed::listening() const {
  absl::MutexLock l(&mu_);
  return listed_;
}

int64_t PlacementFeed::heard() const {
  absl::MutexLock l(&mu_);
  return heard_;
}

}  // namespace bk::client::internal
