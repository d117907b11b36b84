// The cluster file of `bkctl placement ...`: a placement policy's options and
// a set of bookies with their racks and load reports, as JSON (format in
// placement/README.md).
//
// Parsing is strict: unknown keys, wrong types, duplicate ids and malformed
// racks are kInvalidArgument errors whose message names the offending key.
// Missing policy keys take PlacementOptions' defaults; missing load figures
// are -1 (unknown).

#ifndef BK_TOOLS_BKCTL_CLUSTER_FILE_H_
#define BK_TOOLS_BKCTL_CLUSTER_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "placement/ensemble_placement_policy.h"
#include "placement/options.h"
#include "placement/types.h"

namespace bk::bkctl {

struct ClusterBookie {
  placement::BookieNode node;  // location kDefaultRack when "rack" is absent
  bool readonly = false;
  placement::BookieInfo info;
  absl::Duration report_age;  // age of `info` when the command runs
};

struct ClusterFile {
  placement::PlacementOptions options;
  std::vector<ClusterBookie> bookies;  // in file order
};

// Parses the JSON text of a cluster file.
absl::StatusOr<ClusterFile> ParseClusterFile(absl::string_view json_text);

// Reads and parses the file at `path` (kNotFound if it cannot be opened).
absl::StatusOr<ClusterFile> ReadClusterFile(const std::string& path);

// Tells `policy` the cluster: membership, then each bookie's report as
// received at `now` - report_age, then the time `now`.
void ApplyCluster(const ClusterFile& cluster,
                  placement::EnsemblePlacementPolicy& policy, absl::Time now);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_CLUSTER_FILE_H_
