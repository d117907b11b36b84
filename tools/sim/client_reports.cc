// PolicySimulation: what clients learn (polls, observations, probes, the
// perfect-reports reference).

#include <cmath>

#include "absl/random/distributions.h"
#include "tools/sim/policy_simulation.h"

namespace bk::sim {

void PolicySimulation::Probe(placement::RackAwarePolicy& policy, int slots,
                             const placement::BookieSet& excluded, double rate,
                             double at_s) {
  ++result_.placement_calls;
  const std::vector<placement::BookieId> ids =
      policy.ProbeCandidates(s_.ledgers.ensemble_size, s_.ledgers.write_quorum,
                             slots, excluded, Hints(rate));
  result_.probes += static_cast<int64_t>(ids.size());
  for (const placement::BookieId& id : ids) {
    policy.OnProbeReport(id, cluster_.monitors[Index(id)].Report(),
                         ToTime(at_s));
  }
}

void PolicySimulation::ReportExactly(placement::RackAwarePolicy& policy,
                                     double at_s) {
  for (size_t b = 0; b < cluster_.bookies.size(); ++b) {
    placement::BookieInfo info = cluster_.monitors[b].Report();
    info.write_bytes_per_second = OfferedNow(b);
    policy.OnBookieInfo(cluster_.bookies[b].node.id, info, ToTime(at_s));
  }
}

void PolicySimulation::Poll(double at_s, int c) {
  SimClient& client = *clients_[c];
  const absl::Time now = ToTime(at_s);
  for (size_t b = 0; b < cluster_.bookies.size(); ++b) {
    placement::BookieInfo info = cluster_.monitors[b].Report();
    if (s_.clients.exact_polls) info.write_bytes_per_second = OfferedNow(b);
    client.policy().OnBookieInfo(cluster_.bookies[b].node.id, info, now);
  }
  const ClientConfig& cc = s_.clients;
  const double period =
      cc.report_interval_s * absl::Uniform<double>(client.rng(),
                                                   1 - cc.report_jitter,
                                                   1 + cc.report_jitter);
  Schedule(at_s + period, Kind::kPoll, c);
}

void PolicySimulation::Observe(double at_s, int c) {
  SimClient& client = *clients_[c];
  const absl::Time now = ToTime(at_s);
  const std::vector<double>& to = client.bytes_to_bookie();
  for (size_t b = 0; b < to.size(); ++b) {
    if (to[b] <= 1e-6) continue;
    const double adds_per_second = to[b] / s_.traffic.entry_bytes;
    const double latency = latency_[b];
    client.policy().OnClientObservation(
        cluster_.bookies[b].node.id,
        static_cast<int64_t>(std::llround(adds_per_second * latency)),
        absl::Seconds(latency), now);
  }
}

}  // namespace bk::sim
