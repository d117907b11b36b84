// ClientProbe: the client's Prometheus metrics, registered once at
// construction; the hot path only touches prebuilt handles.
//
//   bk_client_add_latency_seconds         histogram, Append to confirmation
//   bk_client_read_latency_seconds        histogram, one entry read
//   bk_client_ensemble_changes_total      counter
//   bk_client_lagging_bookies_total       counter, bookies failed in a
//                                         ledger for lagging its write
//                                         quorum (addEntryLagTimeoutMs)
//   bk_client_pauses_total                counter, maintenance ticks that
//                                         ran over 1 s late: the process
//                                         was paused (pause_guard.h)
//   bk_client_speculative_reads_total     counter
//   bk_client_quarantines_total           counter
//   bk_client_pending_adds                gauge, adds not yet confirmed
//   bk_client_pending_add_bytes           gauge, their packaged bytes
//   bk_client_bookie_info_polls_total     counter {result="ok"|"error"}
//   bk_client_recoveries_total            counter
//   bk_client_placement_probes_total      counter {result="answered"|"failed"}
//                                         (probe on placement: GetBookieInfo
//                                         to candidates before a placement)
//   bk_client_placement_feed_total        counter {event="announced"|
//                                         "heard"|"failed"} (the placement
//                                         feed: new ledgers told to and
//                                         heard from other clients, and
//                                         announcements or reads that failed)
//
// Thread-safe (prometheus-cpp metrics are).

#ifndef BK_CLIENT_INTERNAL_CLIENT_PROBE_H_
#define BK_CLIENT_INTERNAL_CLIENT_PROBE_H_

#include <memory>

#include "absl/time/time.h"

namespace prometheus {
class Registry;
class Histogram;
class Counter;
class Gauge;
}  // namespace prometheus

namespace bk::client::internal {

class ClientProbe {
 public:
  // `registry` must not be null; kept alive by the probe.
  explicit ClientProbe(std::shared_ptr<prometheus::Registry> registry);

  void AddConfirmed(absl::Duration latency);
  void EntryRead(absl::Duration latency);
  void EnsembleChanged();
  void LaggingBookie();
  void Paused();
  void SpeculativeRead();
  void Quarantined();
  void Recovered();
  void InfoPoll(bool ok);
  // One placement's probe round: candidates that answered in time, and
  // those that did not (error, unknown, or too late).
  void PlacementProbes(int answered, int failed);
  // The placement feed (placement_feed.h).
  void FeedAnnounced();
  void FeedHeard();
  void FeedFailed();
  // Deltas of the pending gauges.
  void PendingAdds(int64_t delta_adds, int64_t delta_bytes);

  const std::shared_ptr<prometheus::Registry>& registry() const {
    return registry_;
  }

 private:
  // Constant after construction; the metrics are owned by the registry.
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Histogram* add_latency_;
  prometheus::Histogram* read_latency_;
  prometheus::Counter* ensemble_changes_;
  prometheus::Counter* lagging_bookies_;
  prometheus::Counter* pauses_;
  prometheus::Counter* speculative_reads_;
  prometheus::Counter* quarantines_;
  prometheus::Counter* recoveries_;
  prometheus::Counter* info_ok_;
  prometheus::Counter* info_error_;
  prometheus::Counter* probes_answered_;
  prometheus::Counter* probes_failed_;
  prometheus::Counter* feed_announced_;
  prometheus::Counter* feed_heard_;
  prometheus::Counter* feed_failed_;
  prometheus::Gauge* pending_adds_;
  prometheus::Gauge* pending_add_bytes_;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_CLIENT_PROBE_H_
