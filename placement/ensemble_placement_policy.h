// EnsemblePlacementPolicy: how a client chooses the bookies of a ledger.
//
// Lifecycle: the client creates one policy per client, feeds it the cluster
// (OnClusterChanged), the bookies' load reports (OnBookieInfo) and its own
// view of them (OnClientObservation, Quarantine), and asks it for ensembles.
// Time never comes from a clock inside the policy: `now` is the latest of the
// times passed to AdvanceTime, OnBookieInfo and OnClientObservation.
//
// Threads: not thread-safe. The client serialises calls (one policy behind
// one mutex, or one policy per event loop).

#ifndef BK_PLACEMENT_ENSEMBLE_PLACEMENT_POLICY_H_
#define BK_PLACEMENT_ENSEMBLE_PLACEMENT_POLICY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "placement/read_reorder.h"
#include "placement/types.h"

namespace bk::placement {

class EnsemblePlacementPolicy {
 public:
  virtual ~EnsemblePlacementPolicy() = default;

  // The cluster's membership: bookies accepting writes and read-only ones.
  // Replaces the previous membership.
  virtual void OnClusterChanged(const std::vector<BookieNode>& writable,
                                const std::vector<BookieNode>& readonly) = 0;

  // A load report of `id` received at `received_at`.
  virtual void OnBookieInfo(const BookieId& id, const BookieInfo& info,
                            absl::Time received_at) = 0;

  // The client's own view of `id` at `at`: adds in flight to it and its
  // recent add latency. Used by adaptive weighting only.
  virtual void OnClientObservation(const BookieId& id, int64_t inflight_adds,
                                   absl::Duration add_latency,
                                   absl::Time at) = 0;

  // Keeps `id` out of new ensembles and replacements until `until`, unless
  // the cluster is too small without it (best effort).
  virtual void Quarantine(const BookieId& id, absl::Time until) = 0;

  // Moves the policy's clock forward (earlier times are ignored).
  virtual void AdvanceTime(absl::Time now) = 0;

  // Chooses `ensemble_size` distinct writable bookies not in `excluded` for
  // a ledger described by `hints` (types.h; may be empty).
  // kInvalidArgument unless 1 <= ack_quorum <= write_quorum <= ensemble_size;
  // NotEnoughBookies (types.h) when the cluster cannot supply them.
  virtual absl::StatusOr<PlacementResult> NewEnsemble(
      int ensemble_size, int write_quorum, int ack_quorum,
      const BookieSet& excluded, const LedgerHints& hints) = 0;
  absl::StatusOr<PlacementResult> NewEnsemble(int ensemble_size,
                                              int write_quorum, int ack_quorum,
                                              const BookieSet& excluded) {
    return NewEnsemble(ensemble_size, write_quorum, ack_quorum, excluded,
                       LedgerHints{});
  }

  // Chooses a writable bookie to take `ensemble[index]`'s place: not in the
  // ensemble, not in `excluded`. Adherence is judged on the new ensemble with
  // `write_quorum`. `hints` describe the ledger (on a replacement its rate is
  // best the one measured so far). kInvalidArgument for a bad index or
  // quorum; NotEnoughBookies when no bookie qualifies.
  virtual absl::StatusOr<ReplacementResult> ReplaceBookie(
      const std::vector<BookieId>& ensemble, int index, int write_quorum,
      int ack_quorum, const BookieSet& excluded, const LedgerHints& hints) = 0;
  absl::StatusOr<ReplacementResult> ReplaceBookie(
      const std::vector<BookieId>& ensemble, int index, int write_quorum,
      int ack_quorum, const BookieSet& excluded) {
    return ReplaceBookie(ensemble, index, write_quorum, ack_quorum, excluded,
                         LedgerHints{});
  }

  // Orders `write_set` (indices into `ensemble`) for a read; see
  // read_reorder.h.
  virtual std::vector<int> ReorderReadSequence(
      const std::vector<BookieId>& ensemble, const std::vector<int>& write_set,
      const BookieHealthMap& health) const = 0;
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_ENSEMBLE_PLACEMENT_POLICY_H_
