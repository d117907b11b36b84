// ClusterView: what the client knows of the bookies, and the placement
// policy that acts on it.
//
//  - membership and endpoints, from the metadata store's bookie watch
//    (an endpoint is remembered after its bookie leaves, so that ledgers
//    on a bookie that is briefly unregistered stay readable);
//  - load reports (GetBookieInfo, with the time each arrived) and the
//    client's own observations (adds in flight, add latency), fed to the
//    policy;
//  - per-bookie health for read ordering (last failed entry, pending
//    reads, slow);
//  - quarantine: a bookie with more than bookieErrorThresholdPerInterval
//    errors within bookieHealthCheckIntervalSeconds is kept out of new
//    ensembles and replacements for bookieQuarantineTimeSeconds, unless the
//    cluster is too small without it, and released early after
//    quarantine_release_healthy_reports healthy reports in a row.
//
// Quarantine is kept here rather than in the policy's own Quarantine(),
// whose deadline only grows, because the client must be able to release a
// bookie early: quarantined bookies are passed as `excluded` and the
// request is retried without them when the cluster cannot do without.
//
// Thread-safe: one mutex serialises the policy (which is not thread-safe)
// and the state here. Nothing is called back under it.

#ifndef BK_CLIENT_INTERNAL_CLUSTER_VIEW_H_
#define BK_CLIENT_INTERNAL_CLUSTER_VIEW_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/client_options.h"
#include "client/internal/bookie_info_wire.h"
#include "client/internal/client_probe.h"
#include "metadata/metadata_store.h"
#include "placement/rack_aware_policy.h"
#include "proto/bookie.pb.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

// A candidate's answer to a probe on placement: its GetBookieInfo, taken
// as a fresh report by the next NewEnsemble (under the same lock, so that
// no other placement uses it). `answered` false: the candidate was asked
// and gave no answer within the bound (`info` empty); that choice takes it
// only when nothing else is eligible for a slot.
struct ProbeAnswer {
  std::string id;
  proto::GetBookieInfoResponse info;
  absl::Time at;
  bool answered = true;
};

struct Placement {
  std::vector<std::string> ensemble;
  // One note per bookie chosen (for LedgerMetadata.placement_notes); a new
  // ensemble's also holds notes with `left_out` set for up to
  // kMaxLeftOutNotes bookies the policy did not let compete.
  std::map<std::string, proto::PlacementNote> notes;
};

inline constexpr size_t kMaxLeftOutNotes = 16;

class ClusterView {
 public:
  // `probe` and `options.env` (the clock; null: Env::Default()) must
  // outlive the view.
  ClusterView(const ClientOptions& options, uint64_t seed, ClientProbe* probe);

  // --- membership ---
  void SetBookies(const metadata::BookieSet& bookies);
  // The isolation groups of every tagged bookie (from the metadata store);
  // replaces the previous ones and re-applies the membership.
  void SetBookieGroups(const std::vector<metadata::BookieGroups>& groups);
  std::optional<std::string> Endpoint(const std::string& id) const;
  // Every bookie registered now (writable and read-only).
  std::vector<std::string> Members() const;
  bool HasMembers() const;

  // --- placement ---
  absl::StatusOr<Placement> NewEnsemble(
      int ensemble_size, int write_quorum, int ack_quorum,
      const placement::LedgerHints& hints = placement::LedgerHints{},
      const std::vector<ProbeAnswer>& answers = {});
  // Probe on placement (adaptive weighting with probe candidates > 0;
  // empty otherwise): the bookies to ask for a fresh report before
  // NewEnsemble (RackAwarePolicy::ProbeCandidates; quarantined bookies
  // are not asked).
  std::vector<std::string> ProbeCandidates(int ensemble_size, int write_quorum,
                                           const placement::LedgerHints& hints);
  // The same before ReplaceBookie of one slot: candidates outside
  // `ensemble` and `excluded` (and quarantine).
  std::vector<std::string> ReplaceProbeCandidates(
      const std::vector<std::string>& ensemble, int write_quorum,
      const std::vector<std::string>& excluded,
      const placement::LedgerHints& hints);
  // Replaces ensemble[index]; the bookies of `excluded` are not chosen.
  // `answers`: the probes' fresh reports (ProbeForReplacement).
  absl::StatusOr<Placement> ReplaceBookie(
      const std::vector<std::string>& ensemble, int index, int write_quorum,
      int ack_quorum, const std::vector<std::string>& excluded,
      const placement::LedgerHints& hints = placement::LedgerHints{},
      const std::vector<ProbeAnswer>& answers = {});
  // Read order of `write_set` (slots of `ensemble`).
  std::vector<int> ReadOrder(const std::vector<std::string>& ensemble,
                             const std::vector<int>& write_set) const;

  // --- feedback ---
  // This client closed a ledger it wrote with `hints` on `ensemble` (its
  // last): the policy takes it off those bookies until reports show it
  // (RackAwarePolicy::OnLedgerClosed), so a roll's next ledger sees the
  // room the closed one left.
  void OnLedgerClosed(const std::vector<std::string>& ensemble,
                      int write_quorum, const placement::LedgerHints& hints);
  // Another client created a ledger with `hints` on `ensemble` (heard
  // through the placement feed): counted like this client's own placements
  // until reports show it (RackAwarePolicy::OnPlacedElsewhere).
  void OnPlacedElsewhere(const std::vector<std::string>& ensemble,
                         int write_quorum, const placement::LedgerHints& hints);
  // Another client closed a ledger with `hints` on `ensemble` (heard
  // through the placement feed): as OnLedgerClosed.
  void OnClosedElsewhere(const std::vector<std::string>& ensemble,
                         int write_quorum, const placement::LedgerHints& hints);
  // Another client's ledger with `hints` (E = `ensemble_size`) changed
  // ensemble: `leaving` counted as closed there, `joining` as placed
  // (RackAwarePolicy::OnReplacedElsewhere).
  void OnReplacedElsewhere(const std::string& leaving,
                           const std::string& joining, int ensemble_size,
                           int write_quorum,
                           const placement::LedgerHints& hints);
  void OnBookieInfo(const std::string& id,
                    const proto::GetBookieInfoResponse& info,
                    absl::Time received_at);
  // A failed or timed-out GetBookieInfo; counts as an error of the bookie,
  // except the first that fails `unavailable` (the connection could not
  // reach the bookie) after OnBookieUnreachable: the connection's report
  // counted that failure already.
  void OnBookieInfoFailed(const std::string& id, absl::Time at,
                          bool unavailable);
  void OnAddAnswered(const std::string& id, absl::Duration latency);
  // The same for several adds answered at once, in the order they came.
  void OnAddsAnswered(const std::string& id,
                      absl::Span<const absl::Duration> latencies);
  // A failed request to `id` (add or read): counts towards quarantine.
  void OnBookieError(const std::string& id, int64_t entry_id, absl::Time at);
  // `id` could not be reached (BookieClient's on_unreachable: once for all
  // the calls one connection failure failed): one error, and the bookie is
  // kept out of new ensembles and replacements, as a quarantined one is,
  // until it answers again (an add answered, a GetBookieInfo report).
  void OnBookieUnreachable(const std::string& id, absl::Time at);
  // Requests to `id` failed with its connection, up to `entry_id`: kept for
  // read ordering, not counted (OnBookieUnreachable counted the failure).
  void OnEntryFailed(const std::string& id, int64_t entry_id);
  void OnReadStarted(const std::string& id);
  void OnReadFinished(const std::string& id);
  void MarkSlow(const std::string& id);
  // Moves time on: expires quarantines, feeds the policy the client's
  // observations. `inflight` gives adds in flight per bookie.
  void Tick(absl::Time now, const std::map<std::string, int64_t>& inflight);

  std::vector<std::string> Quarantined() const;
  // The adaptive policy's estimate of each writable bookie's write MiB/s,
  // as of the view's latest time (RackAwarePolicy::EstimatedLoads); empty
  // for other weightings. Read-only, for tools and tests.
  std::map<std::string, double> EstimatedLoads() const;
  // Why the adaptive policy would leave each bookie out of a slot of such a
  // ledger now (RackAwarePolicy::LeftOut); only the bookies it would leave
  // out. Read-only, for tools and tests.
  std::map<std::string, std::string> PlacementLeftOut(
      const placement::LedgerHints& hints, int ensemble_size,
      int write_quorum) const;

 private:
  struct Health {
    std::deque<absl::Time> errors;  // within the health-check interval
    absl::Time quarantined_until = absl::InfinitePast();
    int healthy_reports = 0;  // in a row, while quarantined
    int64_t last_failed_entry = -1;
    bool unreachable = false;  // connection failed, no answer since
    // Set with `unreachable`: the next poll that fails unavailable is the
    // failure the connection reported (or one of its spell), not counted.
    bool report_covers_poll = false;
    int64_t pending_reads = 0;
    bool slow = false;
    double add_latency_ms = 0;  // moving average
    std::optional<placement::BookieInfo> info;
    absl::Time info_at = absl::InfinitePast();
  };

  // Tells the policy members_ with their groups.
  void ApplyMembershipLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the view's and the policy's clocks forward to `now`.
  void AdvanceLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands a probe round's answers (and silences) to the policy.
  void TakeProbesLocked(const std::vector<ProbeAnswer>& answers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsQuarantinedLocked(const std::string& id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The bookies placement leaves out while it can: quarantined or
  // unreachable.
  placement::BookieSet KeptOutSetLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  proto::PlacementNote NoteLocked(const std::string& id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  double ProbabilityLocked(const std::string& id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const ClientOptions options_;  // options_.env is never null
  ClientProbe* const probe_;

  mutable absl::Mutex mu_;
  std::mt19937_64 gen_ ABSL_GUARDED_BY(mu_);
  placement::RackAwarePolicy policy_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, proto::BookieServiceInfo> members_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> endpoints_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> readonly_ ABSL_GUARDED_BY(mu_);  // of members_
  std::map<std::string, std::vector<std::string>> groups_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Health> health_ ABSL_GUARDED_BY(mu_);
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_CLUSTER_VIEW_H_
