#include "tools/sim/clairvoyant.h"

#include <algorithm>
#include <utility>

namespace bk::sim {
namespace {

bool InGrayFailure(const Scenario& s, int bookie, double at_s) {
  for (const GrayFailure& f : s.gray_failures) {
    if (f.bookie == bookie && at_s >= f.start_s &&
        at_s < f.start_s + f.duration_s) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<int> ClairvoyantEnsemble(
    const Scenario& s, const Cluster& cluster,
    const std::vector<std::unique_ptr<SimClient>>& clients, double at_s,
    double close_s) {
  std::vector<double> cost(cluster.bookies.size(), 0.0);
  for (const auto& client : clients) {
    for (const Topic& t : client->topics()) {
      const Ledger& l = t.ledger;
      if (l.ensemble.empty()) continue;
      const double member = l.bytes_per_second * s.ledgers.write_quorum /
                            static_cast<double>(l.ensemble.size());
      const double span = std::max(std::min(l.close_s, close_s) - at_s, 0.0);
      for (int b : l.ensemble) cost[b] += member * span;
    }
  }
  std::vector<std::pair<double, int>> ranked;
  for (size_t b = 0; b < cluster.bookies.size(); ++b) {
    const int index = static_cast<int>(b);
    if (cluster.bookies[b].readonly || InGrayFailure(s, index, at_s)) continue;
    ranked.emplace_back(cost[b], index);
  }
  const size_t e =
      std::min(static_cast<size_t>(s.ledgers.ensemble_size), ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + e, ranked.end());
  std::vector<int> ensemble;
  ensemble.reserve(e);
  for (size_t i = 0; i < e; ++i) ensemble.push_back(ranked[i].second);
  return ensemble;
}

}  // namespace bk::sim
