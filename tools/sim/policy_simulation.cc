// PolicySimulation: construction, the event queue and its dispatch.

#include "tools/sim/policy_simulation.h"

#include "absl/random/distributions.h"
#include "tools/sim/traffic.h"

namespace bk::sim {
namespace {

// The placement options the clients of one weighting run with.
placement::PlacementOptions PlacementOf(const Scenario& s,
                                        placement::Weighting weighting) {
  placement::PlacementOptions options = s.placement;
  options.weighting = weighting;
  return options;
}

}  // namespace

PolicySimulation::PolicySimulation(const Scenario& s,
                                   placement::Weighting weighting,
                                   uint64_t seed)
    : s_(s),
      tick_s_(s.tick_ms / 1000),
      cluster_(BuildCluster(s, seed)),
      metrics_(Writable(cluster_), Devices(cluster_), s.metrics_interval_s,
               s.herd_window_s, s.warmup_s),
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

PolicyRun PolicySimulation::Go() {
  Schedule(tick_s_, Kind::kTick);
  Schedule(s_.monitor.sample_interval_s, Kind::kSample);
  const ClientConfig& cc = s_.clients;
  for (int c = 0; c < cc.count; ++c) {
    SimClient& client = *clients_[c];
    Schedule(absl::Uniform<double>(client.rng(), 0, cc.report_interval_s),
             Kind::kPoll, c);
    Schedule(absl::Uniform<double>(client.rng(), 0, cc.observation_interval_s),
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

void PolicySimulation::Handle(const Event& e) {
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
      Schedule(e.at_s + s_.clients.observation_interval_s, Kind::kObserve, e.a);
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

}  // namespace bk::sim
