// Traffic: heavy-tailed write rates for topics and their ledgers.
//
// A topic's base rate is Pareto with shape a and scale x_m = mean (a-1)/a
// (so its mean is `mean_mib_per_second` before the cap), capped at
// `max_mib_per_second`. Each ledger of the topic writes at base x L, L
// lognormal with median e^(-sigma^2/2) (mean 1): bursts and lulls from one
// ledger to the next. A ledger lives lifetime x U(1-j, 1+j).

#ifndef BK_TOOLS_SIM_TRAFFIC_H_
#define BK_TOOLS_SIM_TRAFFIC_H_

#include <random>

#include "tools/sim/scenario.h"

namespace bk::sim {

// Bytes/s of a new topic.
double DrawTopicRate(const TrafficConfig& traffic, std::mt19937_64& rng);
// Bytes/s of a topic's next ledger: its rate with a burst, capped at
// partition_mib_per_second when topics are partitioned, else at
// max_mib_per_second.
double DrawLedgerRate(const TrafficConfig& traffic, double topic_rate,
                      std::mt19937_64& rng);
// Seconds a new ledger stays open.
double DrawLifetime(const LedgerConfig& ledgers, std::mt19937_64& rng);

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_TRAFFIC_H_
