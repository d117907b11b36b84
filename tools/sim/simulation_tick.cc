// PolicySimulation: the fluid tick (devices, add latencies, metrics
// intervals and the slots of their lower bound).

#include <algorithm>

#include "placement/weighted_selection.h"
#include "tools/sim/ideal_balance.h"
#include "tools/sim/policy_simulation.h"

namespace bk::sim {

void PolicySimulation::Tick(double end_s) {
  const double entry_bytes = s_.traffic.entry_bytes;
  for (size_t d = 0; d < cluster_.devices.size(); ++d) {
    const std::vector<int>& on = cluster_.device_bookies[d];
    std::vector<double>& offered = device_offered_[d];
    double bytes = 0;
    for (size_t i = 0; i < on.size(); ++i) {
      offered[i] = std::max(offered_[on[i]], 0.0) * tick_s_;
      bytes += offered[i];
    }
    JournalDevice& device = cluster_.devices[d];
    device.Step(tick_s_, offered, bytes / entry_bytes);
    metrics_.AddThrottled(device.throttled_bytes());
    for (size_t i = 0; i < on.size(); ++i) {
      const int b = on[i];
      latency_[b] = device.latency_seconds();
      written_[b] = device.written_bytes(static_cast<int>(i));
      cluster_.monitors[b].Accumulate(tick_s_, device.utilisation(),
                                      written_[b], latency_[b]);
    }
  }
  metrics_.AddWritten(written_);
  const bool measured = end_s > s_.warmup_s;
  const LedgerConfig& lc = s_.ledgers;
  for (auto& client : clients_) {
    for (Topic& t : client->topics()) {
      Ledger& l = t.ledger;
      if (l.ensemble.empty()) continue;
      const double bytes = l.bytes_per_second * tick_s_;
      if (measured) offered_bytes_measured_ += bytes;
      const double member =
          bytes * lc.write_quorum / static_cast<double>(l.ensemble.size());
      for (double& b : l.member_bytes) b += member;
      AddLedgerLatency(l, lc, bytes / entry_bytes);
    }
  }
  ChangeEnsembles(end_s);
  if (end_s + 1e-9 >= next_interval_end_) {
    for (auto& client : clients_) {
      for (Topic& t : client->topics()) FlushSlots(t.ledger);
    }
    metrics_.CloseInterval(next_interval_end_,
                           IdealBalanceStddev(slots_, WritableCount(), 1),
                           BalanceLowerBoundStddev(slots_, WritableCount(), 1));
    slots_.clear();
    next_interval_end_ += s_.metrics_interval_s;
  }
}

void PolicySimulation::FlushSlots(Ledger& l) {
  for (double& b : l.member_bytes) FlushSlot(b);
}

void PolicySimulation::FlushSlot(double& bytes) {
  if (bytes > 0) {
    slots_.push_back(bytes / s_.metrics_interval_s / placement::kBytesPerMiB);
  }
  bytes = 0;
}

void PolicySimulation::AddLedgerLatency(const Ledger& l, const LedgerConfig& lc,
                                        double adds) {
  const int e = static_cast<int>(l.ensemble.size());
  const int sets = e == lc.write_quorum ? 1 : e;
  double set_latency[64];
  for (int k = 0; k < sets; ++k) {
    const int wq = std::min(lc.write_quorum, 64);
    for (int i = 0; i < wq; ++i) {
      set_latency[i] = latency_[l.ensemble[(k + i) % e]];
    }
    std::nth_element(set_latency, set_latency + lc.ack_quorum - 1,
                     set_latency + wq);
    metrics_.AddLatency(set_latency[lc.ack_quorum - 1], adds / sets);
  }
}

}  // namespace bk::sim
