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
  a.set_kind(proto::PlacementAnnouncement::NEW_LEDGER);
  for (const std::string& b : ensemble) a.add_bookies(b);
  Post(std::move(a), ledger_id, write_quorum, expected_write_bytes_per_second);
}

void PlacementFeed::AnnounceClosed(int64_t ledger_id,
                                   const std::vector<std::string>& ensemble,
                                   int write_quorum,
                                   double expected_write_bytes_per_second) {
  if (!(expected_write_bytes_per_second >= 0)) return;
  proto::PlacementAnnouncement a;
  a.set_kind(proto::PlacementAnnouncement::CLOSED);
  // In `ensemble`, not `bookies`: older readers reject it (metadata.proto).
  for (const std::string& b : ensemble) a.add_ensemble(b);
  Post(std::move(a), ledger_id, write_quorum, expected_write_bytes_per_second);
}

void PlacementFeed::AnnounceReplaced(int64_t ledger_id,
                                     const std::vector<std::string>& ensemble,
                                     const std::string& leaving,
                                     const std::string& joining,
                                     int write_quorum,
                                     double expected_write_bytes_per_second) {
  if (!(expected_write_bytes_per_second >= 0)) return;
  proto::PlacementAnnouncement a;
  a.set_kind(proto::PlacementAnnouncement::REPLACED);
  for (const std::string& b : ensemble) a.add_ensemble(b);
  a.set_leaving(leaving);
  a.set_joining(joining);
  Post(std::move(a), ledger_id, write_quorum, expected_write_bytes_per_second);
}

void PlacementFeed::Post(proto::PlacementAnnouncement a, int64_t ledger_id,
                         int write_quorum,
                         double expected_write_bytes_per_second) {
  a.set_origin(origin_);
  a.set_ledger_id(ledger_id);
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
  if (!a.ParseFromString(node->value)) {
    if (probe_) probe_->FeedFailed();
    bk::log::Get("client")->warn(
        "placement feed: {} is not a placement announcement", name);
    return;
  }
  if (a.origin() == origin_) return;
  const Outcome outcome = Apply(a);
  if (outcome == Outcome::kIgnored) return;
  if (outcome == Outcome::kMalformed) {
    if (probe_) probe_->FeedFailed();
    bk::log::Get("client")->warn(
        "placement feed: {} is not a placement announcement", name);
    return;
  }
  if (probe_) probe_->FeedHeard();
  absl::MutexLock l(&mu_);
  ++heard_;
}

PlacementFeed::Outcome PlacementFeed::Apply(
    const proto::PlacementAnnouncement& a) {
  placement::LedgerHints hints;
  hints.expected_write_bytes_per_second =
      a.expected_write_bytes_per_second() >= 0
          ? a.expected_write_bytes_per_second()
          : -1;
  const int wq = a.write_quorum_size();
  switch (a.kind()) {
    case proto::PlacementAnnouncement::NEW_LEDGER: {
      if (a.bookies_size() == 0 || wq < 1 || wq > a.bookies_size()) {
        return Outcome::kMalformed;
      }
      cluster_->OnPlacedElsewhere(
          std::vector<std::string>(a.bookies().begin(), a.bookies().end()), wq,
          hints);
      return Outcome::kApplied;
    }
    case proto::PlacementAnnouncement::CLOSED: {
      if (a.bookies_size() != 0 || a.ensemble_size() == 0 || wq < 1 ||
          wq > a.ensemble_size()) {
        return Outcome::kMalformed;
      }
      cluster_->OnClosedElsewhere(
          std::vector<std::string>(a.ensemble().begin(), a.ensemble().end()),
          wq, hints);
      return Outcome::kApplied;
    }
    case proto::PlacementAnnouncement::REPLACED: {
      const bool joined = std::find(a.ensemble().begin(), a.ensemble().end(),
                                    a.joining()) != a.ensemble().end();
      if (a.bookies_size() != 0 || a.ensemble_size() == 0 || wq < 1 ||
          wq > a.ensemble_size() || a.leaving().empty() ||
          a.joining().empty() || a.leaving() == a.joining() || !joined) {
        return Outcome::kMalformed;
      }
      cluster_->OnReplacedElsewhere(a.leaving(), a.joining(), a.ensemble_size(),
                                    wq, hints);
      return Outcome::kApplied;
    }
    default:
      return Outcome::kIgnored;  // a later kind
  }
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
