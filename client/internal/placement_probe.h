// ProbeForPlacement: probe on placement, the client's half. Before a new
// ensemble is chosen, the candidates the policy names
// (ClusterView::ProbeCandidates) are asked for a fresh GetBookieInfo at
// once, and the answers that come back within the bound are handed to
// ClusterView::NewEnsemble, which ranks those bookies by them; the same
// before a replacement (ProbeAndReplace).
//
// A candidate that is unknown to the pool, answers with an error, or has not
// answered within `timeout` is a failed probe: it is marked unanswered
// (chosen only when nothing else is eligible for a slot) and keeps its
// earlier report (a late answer is dropped; the background poll still
// covers it). Thread-safe; blocks the caller for at most `timeout` plus
// scheduling.

#ifndef BK_CLIENT_INTERNAL_PLACEMENT_PROBE_H_
#define BK_CLIENT_INTERNAL_PLACEMENT_PROBE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/internal/client_context.h"
#include "client/internal/cluster_view.h"
#include "placement/types.h"

namespace bk::client::internal {

// One entry per id, in no particular order: the answers, then the ids that
// did not answer (answered false). `ctx` provides the connections (pool())
// and the clock.
std::vector<ProbeAnswer> ProbeForPlacement(ClientContext* ctx,
                                           const std::vector<std::string>& ids,
                                           absl::Duration timeout);

// A replacement of ensemble[index], probed first: the policy's candidates
// for one slot are asked (at most ctx->options().placement_probe_timeout)
// and ClusterView::ReplaceBookie chooses with their answers. Without probe
// candidates it is ReplaceBookie. For the writer's ensemble change, ledger
// recovery and autorecovery's repair alike.
absl::StatusOr<Placement> ProbeAndReplace(
    ClientContext* ctx, const std::vector<std::string>& ensemble, int index,
    int write_quorum, int ack_quorum, const std::vector<std::string>& excluded,
    const placement::LedgerHints& hints = placement::LedgerHints{});

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_PLACEMENT_PROBE_H_
