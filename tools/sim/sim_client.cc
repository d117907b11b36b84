#include "tools/sim/sim_client.h"

#include <cmath>
#include <utility>

#include "placement/weighted_selection.h"
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
  const double partition_bytes =
      scenario.traffic.partition_mib_per_second * placement::kBytesPerMiB;
  const size_t count = static_cast<size_t>(scenario.clients.topics_per_client);
  topics_.reserve(count);
  for (size_t k = 0; k < count; ++k) {
    Topic t;
    t.rng.seed(DeriveSeed(seed, Stream::kTopic, index, k));
    const double rate = DrawTopicRate(scenario.traffic, t.rng);
    const int parts = partition_bytes > 0 && rate > partition_bytes
                          ? static_cast<int>(std::ceil(rate / partition_bytes))
                          : 1;
    t.base_bytes_per_second = rate / parts;
    topics_.push_back(std::move(t));
    for (int p = 1; p < parts; ++p) {
      Topic part;
      part.rng.seed(DeriveSeed(seed, Stream::kPartition, index,
                               (uint64_t{k} << 20) + static_cast<uint64_t>(p)));
      part.base_bytes_per_second = rate / parts;
      topics_.push_back(std::move(part));
    }
  }
}

void SimClient::Account(const Ledger& ledger, int write_quorum, int sign) {
  if (ledger.ensemble.empty()) return;
  const double share = ledger.bytes_per_second * write_quorum /
                       static_cast<double>(ledger.ensemble.size());
  for (int b : ledger.ensemble) to_bookie_[b] += sign * share;
}

}  // namespace bk::sim
