// Isolation groups: BookKeeper's IsolatedBookieEnsemblePlacementPolicy as
// Pulsar drives it. Operators tag bookies with groups (in the metadata
// store; the client passes each bookie's groups in BookieNode::groups). A
// ledger's custom metadata names a primary and a secondary list of groups,
// comma-separated, under the keys of Pulsar's namespace bookie affinity
// groups. Placement then chooses only bookies of a primary group, and
// bookies of a secondary group as well only when the primary groups cannot
// supply the ensemble (or the replacement). Bookies in no named group are
// never chosen for such a ledger. A ledger without the keys is placed over
// every bookie, grouped or not.

#ifndef BK_PLACEMENT_ISOLATION_GROUPS_H_
#define BK_PLACEMENT_ISOLATION_GROUPS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "placement/types.h"

namespace bk::placement {

inline constexpr absl::string_view kAffinityGroupPrimaryKey =
    "bookkeeperAffinityGroupPrimary";
inline constexpr absl::string_view kAffinityGroupSecondaryKey =
    "bookkeeperAffinityGroupSecondary";

struct IsolationGroups {
  std::vector<std::string> primary;    // sorted, distinct
  std::vector<std::string> secondary;  // sorted, distinct, none in primary

  bool empty() const { return primary.empty(); }
};

// The groups a ledger's hints name. Names are trimmed; empty names between
// commas are skipped. kInvalidArgument for a secondary list without a
// primary one, or a name holding a blank or a '/'.
absl::StatusOr<IsolationGroups> IsolationGroupsOf(const LedgerHints& hints);

// Parses one comma-separated list of group names (as above), sorted and
// distinct; the tools use it for a bookie's groups.
absl::StatusOr<std::vector<std::string>> ParseGroupList(absl::string_view list);

// True when the sorted `bookie_groups` and sorted `groups` share a name.
bool SharesGroup(const std::vector<std::string>& bookie_groups,
                 const std::vector<std::string>& groups);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_ISOLATION_GROUPS_H_
