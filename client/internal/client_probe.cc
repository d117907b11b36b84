#include "client/internal/client_probe.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "common/histogram_bounds.h"

namespace bk::client::internal {
namespace {

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  // 100 us .. 10 s, four per octave (common/histogram_bounds.h).
  return ExponentialBounds(100e-6, 10, kLatencyBoundsPerOctave);
}

prometheus::Counter* MakeCounter(prometheus::Registry& r, const char* name,
                                 const char* help,
                                 const prometheus::Labels& labels = {}) {
  return &prometheus::BuildCounter().Name(name).Help(help).Register(r).Add(
      labels);
}

}  // namespace

ClientProbe::ClientProbe(std::shared_ptr<prometheus::Registry> registry)
    : registry_(std::move(registry)) {
  auto& r = *registry_;
  add_latency_ = &prometheus::BuildHistogram()
                      .Name("bk_client_add_latency_seconds")
                      .Help("Time from Append to the entry's confirmation")
                      .Register(r)
                      .Add({}, LatencyBuckets());
  read_latency_ = &prometheus::BuildHistogram()
                       .Name("bk_client_read_latency_seconds")
                       .Help("Time to read one entry, all replicas tried")
                       .Register(r)
                       .Add({}, LatencyBuckets());
  ensemble_changes_ =
      MakeCounter(r, "bk_client_ensemble_changes_total",
                  "Ensemble changes written to ledger metadata");
  lagging_bookies_ = MakeCounter(
      r, "bk_client_lagging_bookies_total",
      "Bookies failed in a ledger because the rest of an add's write quorum "
      "answered addEntryLagTimeoutMs before them");
  pauses_ = MakeCounter(
      r, "bk_client_pauses_total",
      "Maintenance ticks that ran over a second late (the process was "
      "paused); add timeouts wait a second after each");
  speculative_reads_ =
      MakeCounter(r, "bk_client_speculative_reads_total",
                  "Reads sent to another replica after speculativeReadTimeout");
  quarantines_ = MakeCounter(r, "bk_client_quarantines_total",
                             "Bookies put in quarantine for their errors");
  recoveries_ = MakeCounter(r, "bk_client_recoveries_total",
                            "Ledgers recovered and closed by this client");
  auto& polls = prometheus::BuildCounter()
                    .Name("bk_client_bookie_info_polls_total")
                    .Help("GetBookieInfo polls by result")
                    .Register(r);
  info_ok_ = &polls.Add({{"result", "ok"}});
  info_error_ = &polls.Add({{"result", "error"}});
  auto& probes = prometheus::BuildCounter()
                     .Name("bk_client_placement_probes_total")
                     .Help(
                         "Probe on placement: GetBookieInfo to a placement's "
                         "candidates, by whether it was answered in time")
                     .Register(r);
  probes_answered_ = &probes.Add({{"result", "answered"}});
  probes_failed_ = &probes.Add({{"result", "failed"}});
  auto& feed = prometheus::BuildCounter()
                   .Name("bk_client_placement_feed_total")
                   .Help(
                       "Placement feed: new ledgers announced to and heard "
                       "from other clients, and feed calls that failed")
                   .Register(r);
  feed_announced_ = &feed.Add({{"event", "announced"}});
  feed_heard_ = &feed.Add({{"event", "heard"}});
  feed_failed_ = &feed.Add({{"event", "failed"}});
  pending_adds_ = &prometheus::BuildGauge()
                       .Name("bk_client_pending_adds")
                       .Help("Adds appended and not yet confirmed")
                       .Register(r)
                       .Add({});
  pending_add_bytes_ = &prometheus::BuildGauge()
                            .Name("bk_client_pending_add_bytes")
                            .Help("Packaged bytes of the pending adds")
                            .Register(r)
                            .Add({});
}

void ClientProbe::AddConfirmed(absl::Duration latency) {
  add_latency_->Observe(absl::ToDoubleSeconds(latency));
}
void ClientProbe::EntryRead(absl::Duration latency) {
  read_latency_->Observe(absl::ToDoubleSeconds(latency));
}
void ClientProbe::EnsembleChanged() { ensemble_changes_->Increment(); }
void ClientProbe::LaggingBookie() { lagging_bookies_->Increment(); }
void ClientProbe::Paused() { pauses_->Increment(); }
void ClientProbe::SpeculativeRead() { speculative_reads_->Increment(); }
void ClientProbe::Quarantined() { quarantines_->Increment(); }
void ClientProbe::Recovered() { recoveries_->Increment(); }
void ClientProbe::InfoPoll(bool ok) {
  (ok ? info_ok_ : info_error_)->Increment();
}
void ClientProbe::PlacementProbes(int answered, int failed) {
  probes_answered_->Increment(answered);
  probes_failed_->Increment(failed);
}
void ClientProbe::FeedAnnounced() { feed_announced_->Increment(); }
void ClientProbe::FeedHeard() { feed_heard_->Increment(); }
void ClientProbe::FeedFailed() { feed_failed_->Increment(); }
void ClientProbe::PendingAdds(int64_t delta_adds, int64_t delta_bytes) {
  pending_adds_->Increment(static_cast<double>(delta_adds));
  pending_add_bytes_->Increment(static_cast<double>(delta_bytes));
}

}  // namespace bk::client::internal
