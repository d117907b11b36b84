#include "tools/sim/greedy_oracle.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace bk::sim {

std::vector<int> GreedyEnsemble(const Cluster& cluster,
                                const std::vector<double>& offered,
                                int ensemble_size) {
  std::vector<std::pair<double, int>> ranked;
  ranked.reserve(cluster.bookies.size());
  for (size_t b = 0; b < cluster.bookies.size(); ++b) {
    if (cluster.bookies[b].readonly) continue;
    ranked.emplace_back(std::max(offered[b], 0.0), static_cast<int>(b));
  }
  std::sort(ranked.begin(), ranked.end());
  const size_t e =
      std::min(static_cast<size_t>(std::max(ensemble_size, 0)), ranked.size());
  std::vector<int> ensemble;
  ensemble.reserve(e);
  std::vector<bool> used(ranked.size(), false);
  absl::flat_hash_set<std::string> racks;
  // First the least loaded in a new rack each; then, if racks ran out, the
  // least loaded of the rest.
  for (size_t i = 0; i < ranked.size() && ensemble.size() < e; ++i) {
    const std::string& rack =
        cluster.bookies[ranked[i].second].node.network_location;
    if (!racks.insert(rack).second) continue;
    used[i] = true;
    ensemble.push_back(ranked[i].second);
  }
  for (size_t i = 0; i < ranked.size() && ensemble.size() < e; ++i) {
    if (used[i]) continue;
    used[i] = true;
    ensemble.push_back(ranked[i].second);
  }
  return ensemble;
}

}  // namespace bk::sim
