#include "tools/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <queue>

#include "absl/random/distributions.h"
#include "absl/time/time.h"
#include "placement/weighted_selection.h"
#include "tools/sim/clairvoyant.h"
#include "tools/sim/cluster.h"
#include "tools/sim/greedy_oracle.h"
#include "tools/sim/ideal_balance.h"
#include "tools/sim/sim_client.h"
#include "tools/sim/traffic.h"

namespace bk::sim {
namespace {

enum class Kind {
  kTick,
  kSample,
  kPoll,
  kObserve,
  kRoll,
  kGrayStart,
  kGrayEnd
};

struct Event {
  double at_s;
  uint64_t seq;  // ties: scheduling order, for determinism
  Kind kind;
  int a;  // client, or gray failure
  int b;  // topic
  bool operator>(const Event& o) const {
    return at_s != o.at_s ? at_s > o.at_s : seq > o.seq;
  }
};

// The placement options the clients of one weighting run with.
placement::PlacementOptions PlacementOf(const Scenario& s,
                                        placement::Weighting weighting) {
  placement::PlacementOptions options = s.placement;
  options.weighting = weighting;
  return options;
}

// The policy's clock: a fixed epoch plus simulated seconds.
absl::Time ToTime(double seconds) {
  return absl::FromUnixSeconds(1'700'000'000) + absl::Seconds(seconds);
}

// One weighting over one scenario and seed.
class Run {
 public:
  Run(const Scenario& s, placement::Weighting weighting, uint64_t seed)
      : s_(s),
        tick_s_(s.tick_ms / 1000),
        cluster_(BuildCluster(s, seed)),
        metrics_(Writable(cluster_), s.metrics_interval_s, s.herd_window_s,
                 s.warmup_s),
        offered_(cluster_.bookies.size(), 0.0),
        latency_(cluster_.bookies.size(), 0.0),
        written_(cluster_.bookies.size(), 0.0),
        failing_(cluster_.bookies.size(), false),
        next_interval_end_(s.metrics_interval_s),
        shares_new_ledgers_(s.clients.shared_placements ||
                            placement::SharesNewLedgers(
                                PlacementOf(s, weighting),
                                absl::Seconds(s.clients.report_interval_s),
                                s.clients.report_jitter)) {
    result_.weighting = weighting;
    for (int c = 0; c < s.clients.count; ++c) {
      clients_.push_back(
          std::make_unique<SimClient>(c, s, weighting, seed, cluster_));
    }
    for (size_t d = 0; d < cluster_.devices.size(); ++d) {
      device_offered_.emplace_back(cluster_.device_bookies[d].size(), 0.0);
    }
  }

  PolicyRun Go() {
    Schedule(tick_s_, Kind::kTick);
    Schedule(s_.monitor.sample_interval_s, Kind::kSample);
    const ClientConfig& cc = s_.clients;
    for (int c = 0; c < cc.count; ++c) {
      SimClient& client = *clients_[c];
      Schedule(absl::Uniform<double>(client.rng(), 0, cc.report_interval_s),
               Kind::kPoll, c);
      Schedule(
          absl::Uniform<double>(client.rng(), 0, cc.observation_interval_s),
          Kind::kObserve, c);
      const int topics = static_cast<int>(client.topics().size());
      for (int k = 0; k < topics; ++k) {
        Topic& t = client.topics()[k];
        const double life = DrawLifetime(s_.ledgers, t.rng);
        const double remaining = life * absl::Uniform<double>(t.rng, 0, 1);
        Open(0, c, k, remaining);
      }
    }
    for (size_t f = 0; f < s_.gray_failures.size(); ++f) {
      Schedule(s_.gray_failures[f].start_s, Kind::kGrayStart,
               static_cast<int>(f));
    }
    while (!events_.empty()) {
      Event e = events_.top();
      if (e.at_s > s_.duration_s + 1e-9) break;
      events_.pop();
      Handle(e);
    }
    result_.summary = metrics_.Finish();
    const double measured = s_.duration_s - s_.warmup_s;
    result_.offered_mib_per_second =
        offered_bytes_measured_ / measured / (1024.0 * 1024.0);
    return result_;
  }

 private:
  static std::vector<bool> Writable(const Cluster& c) {
    std::vector<bool> w;
    for (const SimBookie& b : c.bookies) w.push_back(!b.readonly);
    return w;
  }

  void Schedule(double at_s, Kind kind, int a = 0, int b = 0) {
    events_.push(Event{at_s, next_seq_++, kind, a, b});
  }

  void Handle(const Event& e) {
    switch (e.kind) {
      case Kind::kTick:
        Tick(e.at_s);
        Schedule(e.at_s + tick_s_, Kind::kTick);
        break;
      case Kind::kSample:
        for (BookieMonitor& m : cluster_.monitors) m.Sample();
        Schedule(e.at_s + s_.monitor.sample_interval_s, Kind::kSample);
        break;
      case Kind::kPoll:
        Poll(e.at_s, e.a);
        break;
      case Kind::kObserve:
        Observe(e.at_s, e.a);
        Schedule(e.at_s + s_.clients.observation_interval_s, Kind::kObserve,
                 e.a);
        break;
      case Kind::kRoll:
        Roll(e.at_s, e.a, e.b);
        break;
      case Kind::kGrayStart:
      case Kind::kGrayEnd: {
        const GrayFailure& f = s_.gray_failures[e.a];
        const int device = cluster_.bookies[f.bookie].device;
        const bool start = e.kind == Kind::kGrayStart;
        cluster_.devices[device].SetSlowdown(start ? f.slowdown : 1);
        if (start) Schedule(e.at_s + f.duration_s, Kind::kGrayEnd, e.a);
        break;
      }
    }
  }

  // Devices, monitors and latencies for the tick ending at `end_s`.
  void Tick(double end_s) {
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
      metrics_.CloseInterval(
          next_interval_end_, IdealBalanceStddev(slots_, WritableCount(), 1),
          BalanceLowerBoundStddev(slots_, WritableCount(), 1));
      slots_.clear();
      next_interval_end_ += s_.metrics_interval_s;
    }
  }

  // Moves the bytes each member of `l` received so far in this interval into
  // the interval's slots (MiB/s over the interval), one slot per member: the
  // time-weighted offered load that the lower bound spreads (ideal_balance.h).
  void FlushSlots(Ledger& l) {
    for (double& b : l.member_bytes) FlushSlot(b);
  }
  void FlushSlot(double& bytes) {
    if (bytes > 0) {
      slots_.push_back(bytes / s_.metrics_interval_s / placement::kBytesPerMiB);
    }
    bytes = 0;
  }
  int WritableCount() const {
    return static_cast<int>(cluster_.writable.size());
  }

  // A bookie fails its writers when its device refused bytes this tick (the
  // backlog reached max_queue_s: adds are throttled) or when an add to it
  // waits add_timeout_s or more. Every open ledger with a failing member
  // replaces it through its client's policy, and the client quarantines it.
  void ChangeEnsembles(double at_s) {
    if (s_.add_timeout_s <= 0) return;
    bool any = false;
    for (size_t b = 0; b < cluster_.bookies.size(); ++b) {
      const JournalDevice& d = cluster_.devices[cluster_.bookies[b].device];
      failing_[b] = d.throttled_bytes() > 0 || latency_[b] >= s_.add_timeout_s;
      any = any || failing_[b];
    }
    if (!any) return;
    for (size_t c = 0; c < clients_.size(); ++c) {
      for (Topic& t : clients_[c]->topics()) {
        Ledger& l = t.ledger;
        if (l.ensemble.empty() || at_s < l.next_replace_s) continue;
        for (size_t i = 0; i < l.ensemble.size(); ++i) {
          if (failing_[l.ensemble[i]]) {
            Replace(static_cast<int>(c), l, i, at_s);
          }
        }
      }
    }
  }

  void Replace(int c, Ledger& l, size_t index, double at_s) {
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
      policy.Quarantine(ids[index],
                        now + absl::Seconds(s_.clients.quarantine_s));
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

  // Probe on placement (placement.adaptive.probe_candidates): the policy
  // names the bookies to ask, and each answers at once with its monitor's
  // report as of now (GetBookieInfo: the window of its last samples, so a
  // ledger placed since its last sample does not show). Zero time, counted.
  void Probe(placement::RackAwarePolicy& policy, int slots,
             const placement::BookieSet& excluded, double rate, double at_s) {
    ++result_.placement_calls;
    const std::vector<placement::BookieId> ids = policy.ProbeCandidates(
        s_.ledgers.ensemble_size, s_.ledgers.write_quorum, slots, excluded,
        Hints(rate));
    result_.probes += static_cast<int64_t>(ids.size());
    for (const placement::BookieId& id : ids) {
      policy.OnProbeReport(id, cluster_.monitors[Index(id)].Report(),
                           ToTime(at_s));
    }
  }

  // The reference run's reports (clients.perfect_reports): every bookie's
  // offered write rate this very moment, as if reports were free and
  // instant. No client can have this; it measures what staleness costs.
  void ReportExactly(placement::RackAwarePolicy& policy, double at_s) {
    for (size_t b = 0; b < cluster_.bookies.size(); ++b) {
      placement::BookieInfo info = cluster_.monitors[b].Report();
      info.write_bytes_per_second = OfferedNow(b);
      policy.OnBookieInfo(cluster_.bookies[b].node.id, info, ToTime(at_s));
    }
  }

  // Bookie b's offered write rate for a report. A bookie left with nothing
  // reads exactly 0: the rounding of offered_'s += and -= can leave it at
  // -1e-9, and a report of a negative rate means "unknown" (the
  // perfect-reports runs saw such idle bookies as median-loaded, so never
  // chose them again). Clamped here, not in offered_ itself, so that the
  // runs without these references stay the same to the bit.
  double OfferedNow(size_t b) const { return std::max(offered_[b], 0.0); }

  placement::LedgerHints Hints(double bytes_per_second) const {
    placement::LedgerHints hints;
    if (s_.clients.rate_hints) {
      hints.expected_write_bytes_per_second = bytes_per_second;
    }
    return hints;
  }

  void AddLedgerLatency(const Ledger& l, const LedgerConfig& lc, double adds) {
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

  void Poll(double at_s, int c) {
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

  void Observe(double at_s, int c) {
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

  void Roll(double at_s, int c, int k) {
    SimClient& client = *clients_[c];
    Topic& t = client.topics()[k];
    client.policy().AdvanceTime(ToTime(at_s));
    Close(at_s, c, t);
    Open(at_s, c, k, DrawLifetime(s_.ledgers, t.rng));
  }

  void Close(double at_s, int c, Topic& t) {
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

  // Opens topic k's next ledger at `at_s`, to roll after `life` seconds. A
  // failed placement leaves the topic without a ledger until the next roll.
  void Open(double at_s, int c, int k, double life) {
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

  // Clients that share their new ledgers (placement.adaptive.
  // share_new_ledgers on 1 s polls, as the client's placement feed does,
  // or the clients.shared_placements reference run): every other client's
  // policy learns client c's new ledger on `ensemble` at `at_s`, with its
  // rate as the hint. At once: the feed's ZooKeeper round trips take
  // milliseconds, under one tick. Closes and ensemble changes are shared
  // the same way (Close, Replace).
  void TellOthers(int c, double at_s, const std::vector<int>& ensemble,
                  double rate) {
    const std::vector<placement::BookieId> ids = Ids(ensemble);
    ForEachPeer(c, at_s, [&](placement::RackAwarePolicy& peer) {
      peer.OnPlacedElsewhere(ids, s_.ledgers.write_quorum, Hints(rate));
    });
  }

  // Calls `tell` with the policy of every client but c, its clock moved to
  // `at_s` first.
  template <typename Tell>
  void ForEachPeer(int c, double at_s, Tell tell) {
    for (size_t o = 0; o < clients_.size(); ++o) {
      if (static_cast<int>(o) == c) continue;
      placement::RackAwarePolicy& peer = clients_[o]->policy();
      peer.AdvanceTime(ToTime(at_s));
      tell(peer);
    }
  }

  std::vector<placement::BookieId> Ids(const std::vector<int>& bookies) const {
    std::vector<placement::BookieId> ids;
    ids.reserve(bookies.size());
    for (int b : bookies) ids.push_back(cluster_.bookies[b].node.id);
    return ids;
  }

  void Account(SimClient& client, const Ledger& l, int sign) {
    if (l.ensemble.empty()) return;
    client.Account(l, s_.ledgers.write_quorum, sign);
    const double share = l.bytes_per_second * s_.ledgers.write_quorum /
                         static_cast<double>(l.ensemble.size());
    for (int b : l.ensemble) offered_[b] += sign * share;
  }

  // Bookie ids are "b%03d" of their index (cluster.h).
  static int Index(const placement::BookieId& id) {
    return std::atoi(id.c_str() + 1);
  }

  const Scenario& s_;
  const double tick_s_;
  Cluster cluster_;
  Metrics metrics_;
  std::vector<std::unique_ptr<SimClient>> clients_;
  std::vector<double> offered_;  // bytes/s per bookie, all clients
  std::vector<double> latency_;  // seconds per bookie, last tick
  std::vector<double> written_;  // bytes per bookie, last tick
  std::vector<bool> failing_;    // per bookie, last tick (ChangeEnsembles)
  std::vector<double> slots_;    // this interval's flushed slots, MiB/s
  std::vector<std::vector<double>> device_offered_;  // scratch, per device
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t next_seq_ = 0;
  double next_interval_end_;
  const bool shares_new_ledgers_;  // TellOthers on every new ledger
  double offered_bytes_measured_ = 0;
  PolicyRun result_;
};

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

PolicyRun SimulatePolicy(const Scenario& scenario,
                         placement::Weighting weighting, uint64_t seed) {
  // Wall time is measured for the report only; it never feeds the model.
  const auto start = std::chrono::steady_clock::now();
  Run run(scenario, weighting, seed);
  PolicyRun result = run.Go();
  result.wall_seconds = Since(start);
  return result;
}

SimulationResult Simulate(const Scenario& scenario, uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  SimulationResult result;
  result.scenario = scenario;
  result.seed = seed;
  for (placement::Weighting w : scenario.policies) {
    result.runs.push_back(SimulatePolicy(scenario, w, seed));
  }
  result.wall_seconds = Since(start);
  return result;
}

}  // namespace bk::sim
