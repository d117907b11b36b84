// PolicySimulation: ledgers opening and closing, and what clients that
// share them tell each other.

#include "tools/sim/clairvoyant.h"
#include "tools/sim/greedy_oracle.h"
#include "tools/sim/policy_simulation.h"
#include "tools/sim/traffic.h"

namespace bk::sim {

void PolicySimulation::Roll(double at_s, int c, int k) {
  SimClient& client = *clients_[c];
  Topic& t = client.topics()[k];
  client.policy().AdvanceTime(ToTime(at_s));
  Close(at_s, c, t);
  Open(at_s, c, k, DrawLifetime(s_.ledgers, t.rng));
}

void PolicySimulation::Close(double at_s, int c, Topic& t) {
  SimClient& client = *clients_[c];
  // The client knows the ledger it closes, as a broker rolling a ledger
  // does: its policy takes it off those bookies until reports catch up,
  // and clients that share new ledgers share the close too (the feed's
  // close announcement).
  if (!t.ledger.ensemble.empty()) {
    const std::vector<placement::BookieId> ids = Ids(t.ledger.ensemble);
    const placement::LedgerHints hints = Hints(t.ledger.bytes_per_second);
    client.policy().OnLedgerClosed(ids, s_.ledgers.write_quorum, hints);
    if (shares_new_ledgers_) {
      ForEachPeer(c, at_s, [&](placement::RackAwarePolicy& peer) {
        peer.OnClosedElsewhere(ids, s_.ledgers.write_quorum, hints);
      });
    }
  }
  Account(client, t.ledger, -1);
  FlushSlots(t.ledger);
  t.ledger = Ledger{};
}

void PolicySimulation::Open(double at_s, int c, int k, double life) {
  SimClient& client = *clients_[c];
  Topic& t = client.topics()[k];
  const double rate =
      DrawLedgerRate(s_.traffic, t.base_bytes_per_second, t.rng);
  Schedule(at_s + life, Kind::kRoll, c, k);
  placement::RackAwarePolicy& policy = client.policy();
  policy.AdvanceTime(ToTime(at_s));
  if (s_.clients.perfect_reports) ReportExactly(policy, at_s);
  const LedgerConfig& lc = s_.ledgers;
  Ledger l;
  l.bytes_per_second = rate;
  l.close_s = at_s + life;
  if (s_.clients.clairvoyant) {
    l.ensemble = ClairvoyantEnsemble(s_, cluster_, clients_, at_s, l.close_s);
  } else if (s_.clients.greedy) {
    l.ensemble = GreedyEnsemble(cluster_, offered_, lc.ensemble_size);
  } else {
    Probe(policy, lc.ensemble_size, {}, rate, at_s);
    absl::StatusOr<placement::PlacementResult> placed = policy.NewEnsemble(
        lc.ensemble_size, lc.write_quorum, lc.ack_quorum, {}, Hints(rate));
    if (!placed.ok()) {
      ++result_.placement_failures;
      return;
    }
    for (const placement::BookieId& id : placed->ensemble) {
      l.ensemble.push_back(Index(id));
    }
  }
  ++result_.ledgers_created;
  if (shares_new_ledgers_) TellOthers(c, at_s, l.ensemble, rate);
  l.member_bytes.assign(l.ensemble.size(), 0.0);
  metrics_.AddPlacement(at_s, l.ensemble);
  t.ledger = std::move(l);
  Account(client, t.ledger, +1);
}

void PolicySimulation::TellOthers(int c, double at_s,
                                  const std::vector<int>& ensemble,
                                  double rate) {
  const std::vector<placement::BookieId> ids = Ids(ensemble);
  ForEachPeer(c, at_s, [&](placement::RackAwarePolicy& peer) {
    peer.OnPlacedElsewhere(ids, s_.ledgers.write_quorum, Hints(rate));
  });
}

void PolicySimulation::Account(SimClient& client, const Ledger& l, int sign) {
  if (l.ensemble.empty()) return;
  client.Account(l, s_.ledgers.write_quorum, sign);
  const double share = l.bytes_per_second * s_.ledgers.write_quorum /
                       static_cast<double>(l.ensemble.size());
  for (int b : l.ensemble) offered_[b] += sign * share;
}

}  // namespace bk::sim
