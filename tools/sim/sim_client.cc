#include "tools/sim/sim_client.h"

#include "tools/sim/seeds.h"
#include "tools/sim/traffic.h"

namespace bk::sim {

SimClient::SimClient(int index, const Scenario& scenario,
                     placement::Weighting weighting, uint64_t seed,
                     const Cluster& cluster)
    : policy_gen_(DeriveSeed(seed, Stream::kPolicy, index)),
      client_rng_(DeriveSeed(seed, Stream::kClient, index)),
      to_bookie_(cluster.bookies.size(), 0.0) {
  placement::PlacementOptions options = scenario.placement;
  options.weighting = weighting;
  policy_ = std::make_unique<placement::RackAwarePolicy>(options, policy_gen_);
  policy_->OnClusterChanged(cluster.writable, cluster.readonly);
  topics_.resize(scenario.clients.topics_per_client);
  for (size_t k = 0; k < topics_.size(); ++k) {
    Topic& t = topics_[k];
    t.rng.seed(DeriveSeed(seed, Stream::kTopic, index, k));
    t.base_bytes_per_second = DrawTopicRate(scenario.traffic, t.rng);
  }
}

void SimClient::Account(const Ledger& ledger, int write_quorum, int sign) {
  if (ledger.ensemble.empty()) return;
  const double share = ledger.bytes_per_second * write_quorum /
                       static_cast<double>(ledger.ensemble.size());
  for (int b : ledger.ensemble) to_bookie_[b] += sign * share;
}

}  // namespace bk::sim
