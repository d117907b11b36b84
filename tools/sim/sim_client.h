// SimClient: one simulated client (a broker) -- its own placement policy (the
// real RackAwarePolicy, with its own generator), its topics and their open
// ledgers, and the bytes/s its ledgers send to each bookie.
//
// The policy learns the cluster once, reports only when the simulator polls
// for this client, and the client's own view when the simulator observes for
// it; it never reads a clock.
//
// Not thread-safe; owned by the simulator.

#ifndef BK_TOOLS_SIM_SIM_CLIENT_H_
#define BK_TOOLS_SIM_SIM_CLIENT_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "placement/rack_aware_policy.h"
#include "tools/sim/cluster.h"
#include "tools/sim/scenario.h"

namespace bk::sim {

struct Ledger {
  std::vector<int> ensemble;    // bookie indices; empty: none open
  double bytes_per_second = 0;  // the ledger's add rate (before replication)
  // Bytes each member received since the current metrics interval began or
  // since it joined the ensemble, whichever is later (parallel to
  // `ensemble`): the slots of the interval's lower bound (ideal_balance.h).
  std::vector<double> member_bytes;
  // No replacement is tried before this time after one failed.
  double next_replace_s = 0;
  double close_s = 0;  // when it rolls (the clairvoyant oracle reads it)
};

struct Topic {
  double base_bytes_per_second = 0;
  std::mt19937_64 rng;  // this topic's traffic stream
  Ledger ledger;
};

class SimClient {
 public:
  // Topic streams come from (seed, client, topic), the policy's generator
  // from (seed, client), the same for every weighting.
  SimClient(int index, const Scenario& scenario, placement::Weighting weighting,
            uint64_t seed, const Cluster& cluster);
  SimClient(const SimClient&) = delete;
  SimClient& operator=(const SimClient&) = delete;

  placement::RackAwarePolicy& policy() { return *policy_; }
  std::vector<Topic>& topics() { return topics_; }
  std::mt19937_64& rng() { return client_rng_; }

  // Bytes/s this client's open ledgers send to each bookie (per replica).
  const std::vector<double>& bytes_to_bookie() const { return to_bookie_; }
  // Adds (+1) or removes (-1) a ledger's traffic from bytes_to_bookie().
  // Entry e of a ledger goes to bookies (e + i) mod E, i < WQ, so each
  // member receives WQ / E of the ledger's bytes.
  void Account(const Ledger& ledger, int write_quorum, int sign);

 private:
  std::mt19937_64 policy_gen_;  // declared before policy_, which refers to it
  std::unique_ptr<placement::RackAwarePolicy> policy_;
  std::mt19937_64 client_rng_;  // poll jitter
  std::vector<Topic> topics_;
  std::vector<double> to_bookie_;
};

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_SIM_CLIENT_H_
