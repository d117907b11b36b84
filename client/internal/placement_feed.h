// PlacementFeed: the clients of one cluster tell each other of the ledgers
// they create, close and move, so that adaptive placement counts a new
// ledger on its bookies from the moment it is placed, not from the first
// report that shows its writes (a bookie's report window and a poll
// later), and takes a closed ledger, or a bookie an ensemble change left,
// off at once. On 1 s polls that lag is what is left between the adaptive
// policy and the greedy reference (tools/sim/README.md, "The online
// limit").
//
// How: each event is announced as an ephemeral sequential node
// <root>/placements/p-NNNNNNNNNN holding a proto::PlacementAnnouncement
// (its kind, the ensemble, write quorum, rate hint; for an ensemble change
// the bookie leaving and the one joining), which its creator deletes after
// kAnnouncementLife (and which vanishes with its session). Every feed
// watches the children of placements/ and reads each node newer than the
// newest it has seen, leaving out its own (by origin); a new ledger goes
// to ClusterView::OnPlacedElsewhere, a close to OnClosedElsewhere, an
// ensemble change to OnReplacedElsewhere. The nodes present when the feed
// starts are history and are not read. A close or an ensemble change is
// written so that a reader from before they were announced rejects it
// rather than count it as a new ledger (proto/metadata.proto).
//
// Cost per event announced (a ledger created, closed, or an ensemble
// change; closes and changes without a rate are not announced, they would
// change nothing): two metadata writes (the create and the delete) and,
// for each other client with a feed, one children list (a burst may share
// one) and one read.
//
// Who runs one: ClientContext, when placement::SharesNewLedgers holds for
// the client's options (adaptive weighting, share_new_ledgers, bookies
// polled at least every least_loaded_report_age).
//
// Threads: the Announce calls never block (the writes run on the feed's
// own thread); what is heard is read and applied on the store's callback
// thread. Thread-safe.

#ifndef BK_CLIENT_INTERNAL_PLACEMENT_FEED_H_
#define BK_CLIENT_INTERNAL_PLACEMENT_FEED_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/internal/client_probe.h"
#include "client/internal/cluster_view.h"
#include "common/executor.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

class PlacementFeed {
 public:
  // How long an announcement stays up: longer than a report window plus a
  // poll, after which reports show the ledger's writes.
  static constexpr absl::Duration kAnnouncementLife = absl::Seconds(10);
  // At most this many new announcements are read per change of the list
  // (the newest); a longer burst's older ones are skipped, so that one
  // burst cannot hold the store's callback thread for long.
  static constexpr int kMaxReadsPerChange = 256;

  // Starts watching <root>/placements. `store`, `cluster`, `probe` (may be
  // null) and `clock` must outlive the feed.
  PlacementFeed(metadata::MetadataStore* store, ClusterView* cluster,
                ClientProbe* probe, Env* clock);
  // Stops watching, then deletes the announcements still up.
  ~PlacementFeed();

  PlacementFeed(const PlacementFeed&) = delete;
  PlacementFeed& operator=(const PlacementFeed&) = delete;

  // Announces a ledger this client created on `ensemble`; `rate` < 0 when
  // the writer gave no rate hint. Never blocks; a failed write is logged
  // and counted (bk_client_placement_feed_total{event="failed"}).
  void Announce(int64_t ledger_id, const std::vector<std::string>& ensemble,
                int write_quorum, double expected_write_bytes_per_second);
  // Announces that this client closed a ledger whose last ensemble was
  // `ensemble`, written at `expected_write_bytes_per_second` (the rate its
  // own policy takes off, RackAwarePolicy::OnLedgerClosed). Nothing is
  // announced without a rate. As Announce otherwise.
  void AnnounceClosed(int64_t ledger_id,
                      const std::vector<std::string>& ensemble,
                      int write_quorum, double expected_write_bytes_per_second);
  // Announces an ensemble change of a ledger this client writes: `leaving`
  // was replaced by `joining`, giving `ensemble` (which holds `joining`).
  // Nothing is announced without a rate. As Announce otherwise.
  void AnnounceReplaced(int64_t ledger_id,
                        const std::vector<std::string>& ensemble,
                        const std::string& leaving, const std::string& joining,
                        int write_quorum,
                        double expected_write_bytes_per_second);

  // Announcements of other clients applied so far.
  int64_t heard() const;
  // True once the feed has taken its first list of placements/ (what was
  // there then is history): announcements made after this are heard.
  bool listening() const;

 private:
  // The fields every kind shares; posts the write.
  void Post(proto::PlacementAnnouncement a, int64_t ledger_id, int write_quorum,
            double expected_write_bytes_per_second);
  // On the store's callback thread.
  void OnChildren(absl::StatusOr<std::vector<std::string>> names);
  void Hear(const std::string& name);
  enum class Outcome { kApplied, kIgnored, kMalformed };
  // Hands a well-formed announcement of another client to the cluster
  // view. Kinds this client does not know are ignored.
  Outcome Apply(const proto::PlacementAnnouncement& a);
  // On writer_.
  void Write(const std::string& data);

  // Constant after construction.
  metadata::MetadataStore* const store_;
  ClusterView* const cluster_;
  ClientProbe* const probe_;
  Env* const clock_;
  const std::string origin_;

  mutable absl::Mutex mu_;
  // The newest child name seen; empty before the first list, or when
  // placements/ held nothing at the first list.
  std::string newest_seen_ ABSL_GUARDED_BY(mu_);
  bool listed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t heard_ ABSL_GUARDED_BY(mu_) = 0;

  std::unique_ptr<metadata::Subscription> watch_;
  // Own synchronisation; runs the creates and the delayed deletes.
  Executor writer_;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_PLACEMENT_FEED_H_
