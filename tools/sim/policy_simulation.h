// PolicySimulation: one weighting over one scenario and seed, the
// simulator's event loop and model (simulator.h states the model). Internal
// to bk_sim: Simulate and SimulatePolicy (simulator.h) are the API.
//
// Its parts, by concept:
//   policy_simulation.cc  construction, the event queue and its dispatch;
//   simulation_tick.cc    the fluid tick: devices, add latencies, the
//                         metrics interval and its lower bound's slots;
//   client_reports.cc     what clients learn: polls, observations, probes,
//                         the perfect-reports reference;
//   ledger_rolls.cc       ledgers opening and closing, and what clients
//                         that share them tell each other;
//   ensemble_change.cc    failing bookies replaced in open ledgers.
//
// Not thread-safe: one run per thread.

#ifndef BK_TOOLS_SIM_POLICY_SIMULATION_H_
#define BK_TOOLS_SIM_POLICY_SIMULATION_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "absl/time/time.h"
#include "placement/options.h"
#include "placement/rack_aware_policy.h"
#include "placement/types.h"
#include "tools/sim/cluster.h"
#include "tools/sim/metrics.h"
#include "tools/sim/scenario.h"
#include "tools/sim/sim_client.h"
#include "tools/sim/simulator.h"

namespace bk::sim {

class PolicySimulation {
 public:
  // REQUIRES: ValidateScenario(s).ok(). `s` must outlive the simulation.
  PolicySimulation(const Scenario& s, placement::Weighting weighting,
                   uint64_t seed);

  // Runs the simulation to the scenario's end; call once.
  PolicyRun Go();

 private:
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

  // The policy's clock: a fixed epoch plus simulated seconds.
  static absl::Time ToTime(double seconds) {
    return absl::FromUnixSeconds(1'700'000'000) + absl::Seconds(seconds);
  }

  static std::vector<bool> Writable(const Cluster& c) {
    std::vector<bool> w;
    for (const SimBookie& b : c.bookies) w.push_back(!b.readonly);
    return w;
  }
  static std::vector<int> Devices(const Cluster& c) {
    std::vector<int> d;
    for (const SimBookie& b : c.bookies) d.push_back(b.device);
    return d;
  }

  void Schedule(double at_s, Kind kind, int a = 0, int b = 0) {
    events_.push(Event{at_s, next_seq_++, kind, a, b});
  }

  // Runs one event (and schedules what follows it).
  void Handle(const Event& e);

  // --- simulation_tick.cc ---
  // Devices, monitors and latencies for the tick ending at `end_s`.
  void Tick(double end_s);

  // Moves the bytes each member of `l` received so far in this interval into
  // the interval's slots (MiB/s over the interval), one slot per member: the
  // time-weighted offered load that the lower bound spreads (ideal_balance.h).
  void FlushSlots(Ledger& l);
  void FlushSlot(double& bytes);

  int WritableCount() const {
    return static_cast<int>(cluster_.writable.size());
  }

  // Adds the latency of `l`'s `adds` in this tick to the metrics: per write
  // set, the AQ-th smallest of its bookies' device latencies.
  void AddLedgerLatency(const Ledger& l, const LedgerConfig& lc, double adds);

  // --- ensemble_change.cc ---
  // A bookie fails its writers when its device refused bytes this tick (the
  // backlog reached max_queue_s: adds are throttled) or when an add to it
  // waits add_timeout_s or more. Every open ledger with a failing member
  // replaces it through its client's policy, and the client quarantines it.
  // With add_lag_timeout_s at AQ == WQ >= 2 (the client's
  // addEntryLagTimeoutMs), a ledger also replaces the member of a write set
  // whose add latency exceeds the rest of the set's by that much: the
  // client sees the others answer and this one not.
  void ChangeEnsembles(double at_s);
  bool WatchesLag() const;
  // The index in l.ensemble of a lagging member, or -1.
  int LaggingMember(const Ledger& l) const;
  // Replaces ensemble[index] of client c's ledger `l` through its policy
  // (`lagging`: for lag, counted in lag_changes); a refused replacement is
  // retried a second later.
  void Replace(int c, Ledger& l, size_t index, double at_s, bool lagging);

  // --- client_reports.cc ---
  // Probe on placement (placement.adaptive.probe_candidates): the policy
  // names the bookies to ask, and each answers at once with its monitor's
  // report as of now (GetBookieInfo: the window of its last samples, so a
  // ledger placed since its last sample does not show). Zero time, counted.
  void Probe(placement::RackAwarePolicy& policy, int slots,
             const placement::BookieSet& excluded, double rate, double at_s);

  // The reference run's reports (clients.perfect_reports): every bookie's
  // offered write rate this very moment, as if reports were free and
  // instant. No client can have this; it measures what staleness costs.
  void ReportExactly(placement::RackAwarePolicy& policy, double at_s);

  // Bookie b's offered write rate for a report. A bookie left with nothing
  // reads exactly 0: the rounding of offered_'s += and -= can leave it at
  // -1e-9, and a report of a negative rate means "unknown" (the
  // perfect-reports runs saw such idle bookies as median-loaded, so never
  // chose them again). Clamped here, not in offered_ itself, so that the
  // runs without these references stay the same to the bit.
  double OfferedNow(size_t b) const { return std::max(offered_[b], 0.0); }

  // Client c's poll: every bookie's report, received now; schedules the
  // next.
  void Poll(double at_s, int c);
  // Client c's own view of the bookies its ledgers write to.
  void Observe(double at_s, int c);

  // --- ledger_rolls.cc ---
  // Client c's topic k rolls: its ledger closes and the next opens.
  void Roll(double at_s, int c, int k);
  // Closes topic t's ledger (client c's policy told, and its peers when
  // they share).
  void Close(double at_s, int c, Topic& t);

  // Opens topic k's next ledger at `at_s`, to roll after `life` seconds. A
  // failed placement leaves the topic without a ledger until the next roll.
  void Open(double at_s, int c, int k, double life);

  // Clients that share their new ledgers (placement.adaptive.
  // share_new_ledgers on 1 s polls, as the client's placement feed does,
  // or the clients.shared_placements reference run): every other client's
  // policy learns client c's new ledger on `ensemble` at `at_s`, with its
  // rate as the hint. At once: the feed's ZooKeeper round trips take
  // milliseconds, under one tick. Closes and ensemble changes are shared
  // the same way (Close, Replace).
  void TellOthers(int c, double at_s, const std::vector<int>& ensemble,
                  double rate);

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

  // Adds (+1) or removes (-1) `l`'s traffic from the offered loads.
  void Account(SimClient& client, const Ledger& l, int sign);

  placement::LedgerHints Hints(double bytes_per_second) const {
    placement::LedgerHints hints;
    if (s_.clients.rate_hints) {
      hints.expected_write_bytes_per_second = bytes_per_second;
    }
    return hints;
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

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_POLICY_SIMULATION_H_
