// PolicySimulation: failing bookies replaced in open ledgers.

#include <algorithm>

#include "tools/sim/policy_simulation.h"

namespace bk::sim {

void PolicySimulation::ChangeEnsembles(double at_s) {
  if (s_.add_timeout_s <= 0) return;
  bool any = false;
  double slowest = 0;
  for (size_t b = 0; b < cluster_.bookies.size(); ++b) {
    const JournalDevice& d = cluster_.devices[cluster_.bookies[b].device];
    failing_[b] = d.throttled_bytes() > 0 || latency_[b] >= s_.add_timeout_s;
    any = any || failing_[b];
    slowest = std::max(slowest, latency_[b]);
  }
  // A lag of add_lag_timeout_s needs one bookie at least that slow.
  const bool lag = WatchesLag() && slowest >= s_.add_lag_timeout_s;
  if (!any && !lag) return;
  for (size_t c = 0; c < clients_.size(); ++c) {
    for (Topic& t : clients_[c]->topics()) {
      Ledger& l = t.ledger;
      if (l.ensemble.empty() || at_s < l.next_replace_s) continue;
      for (size_t i = 0; i < l.ensemble.size(); ++i) {
        if (failing_[l.ensemble[i]]) {
          Replace(static_cast<int>(c), l, i, at_s, /*lagging=*/false);
        }
      }
      if (!lag || at_s < l.next_replace_s) continue;
      const int m = LaggingMember(l);
      if (m >= 0 && !failing_[l.ensemble[m]]) {
        Replace(static_cast<int>(c), l, m, at_s, /*lagging=*/true);
      }
    }
  }
}

bool PolicySimulation::WatchesLag() const {
  const LedgerConfig& lc = s_.ledgers;
  return s_.add_lag_timeout_s > 0 && lc.write_quorum >= 2 &&
         lc.ack_quorum == lc.write_quorum;
}

int PolicySimulation::LaggingMember(const Ledger& l) const {
  const int e = static_cast<int>(l.ensemble.size());
  const int wq = s_.ledgers.write_quorum;
  const int sets = e == wq ? 1 : e;
  for (int k = 0; k < sets; ++k) {
    int top = -1;
    double first = -1;
    double second = -1;
    for (int i = 0; i < wq; ++i) {
      const int m = (k + i) % e;
      const double latency = latency_[l.ensemble[m]];
      if (latency > first) {
        second = first;
        first = latency;
        top = m;
      } else if (latency > second) {
        second = latency;
      }
    }
    if (first - second >= s_.add_lag_timeout_s) return top;
  }
  return -1;
}

void PolicySimulation::Replace(int c, Ledger& l, size_t index, double at_s,
                               bool lagging) {
  SimClient& client = *clients_[c];
  placement::RackAwarePolicy& policy = client.policy();
  const absl::Time now = ToTime(at_s);
  policy.AdvanceTime(now);
  std::vector<placement::BookieId> ids;
  placement::BookieSet excluded;
  for (int b : l.ensemble) {
    ids.push_back(cluster_.bookies[b].node.id);
    if (failing_[b]) excluded.insert(ids.back());
  }
  if (s_.clients.quarantine_s > 0) {
    policy.Quarantine(ids[index], now + absl::Seconds(s_.clients.quarantine_s));
  }
  {
    placement::BookieSet probe_excluded = excluded;
    probe_excluded.insert(ids.begin(), ids.end());
    Probe(policy, 1, probe_excluded, l.bytes_per_second, at_s);
  }
  absl::StatusOr<placement::ReplacementResult> r = policy.ReplaceBookie(
      ids, static_cast<int>(index), s_.ledgers.write_quorum,
      s_.ledgers.ack_quorum, excluded, Hints(l.bytes_per_second));
  if (!r.ok()) {
    ++result_.replace_failures;
    l.next_replace_s = at_s + 1;  // the writer retries a second later
    return;
  }
  ++result_.ensemble_changes;
  if (lagging) ++result_.lag_changes;
  if (shares_new_ledgers_) {
    // As the client's feed announces an ensemble change.
    const placement::LedgerHints hints = Hints(l.bytes_per_second);
    const int size = static_cast<int>(ids.size());
    ForEachPeer(c, at_s, [&](placement::RackAwarePolicy& peer) {
      peer.OnReplacedElsewhere(ids[index], r->bookie, size,
                               s_.ledgers.write_quorum, hints);
    });
  }
  Account(client, l, -1);
  FlushSlot(l.member_bytes[index]);
  l.ensemble[index] = Index(r->bookie);
  Account(client, l, +1);
}

}  // namespace bk::sim
