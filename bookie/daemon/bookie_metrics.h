// The bookie's Prometheus metrics beyond the service's request counters:
//
//  - JournalProbe: a JournalObserver that records each group's size, its
//    write and sync latency and its waits between the journal's stages
//    (queue, sync queue, callback queue) in histograms (handles taken at
//    construction).
//  - StatsCollector: a prometheus::Collectable that reads the journal,
//    storage, monitor, disk and server state at scrape time, so nothing on
//    the hot path keeps those figures twice.
//
// Names are Prometheus style (snake_case, base units, _total counters); the
// bookie id and directories are labels.

#ifndef BK_BOOKIE_DAEMON_BOOKIE_METRICS_H_
#define BK_BOOKIE_DAEMON_BOOKIE_METRICS_H_

#include <prometheus/collectable.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <functional>
#include <string>
#include <vector>

#include "bookie/bookie_store.h"
#include "bookie/daemon/metadata_ledger_filter.h"
#include "bookie/disk_checker.h"
#include "bookie/journal/journal_stats.h"
#include "bookie/storage/storage_stats.h"
#include "monitor/load_report.h"

namespace bk::bookie {

class JournalProbe final : public JournalObserver {
 public:
  JournalProbe(prometheus::Registry& registry, const std::string& bookie_id);
  void OnGroup(const JournalGroupEvent& event) override;
  void OnCallbacks(const JournalCallbackEvent& event) override;

 private:
  prometheus::Histogram* group_entries_;
  prometheus::Histogram* group_bytes_;
  prometheus::Histogram* sync_seconds_;
  prometheus::Histogram* write_seconds_;
  prometheus::Histogram* queue_seconds_;
  prometheus::Histogram* sync_queue_seconds_;
  prometheus::Histogram* callback_queue_seconds_;
};

// Everything the collector reads, as functions so it holds no pointers into
// objects it does not own beyond their lifetime (the daemon owns all).
struct StatsSources {
  std::function<JournalStats()> journal;
  std::function<StorageStats()> storage;
  std::function<StoreStats()> store;
  std::function<monitor::LoadReport()> load;
  std::function<DiskCheckResult()> disk;  // last check
  std::function<bool()> registered;
  // GC's lookups in the metadata store (all zero without a filter).
  std::function<MetadataLedgerFilter::Stats()> gc_filter;
  // Failed registrations (may be empty: none).
  std::function<uint64_t()> registration_failures;
};

class StatsCollector final : public prometheus::Collectable {
 public:
  StatsCollector(std::string bookie_id, StatsSources sources);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string bookie_id_;
  const StatsSources sources_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_BOOKIE_METRICS_H_
