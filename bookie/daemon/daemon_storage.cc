// Storage and the load monitor of a running bookie (daemon_wiring.h).

#include "bookie/daemon/daemon_wiring.h"
#include "metadata/uri.h"
#include "monitor/block_device.h"

namespace bk::bookie {

// The monitor's view of the bookie's own totals.
class StoreCounters final : public monitor::OwnCounters {
 public:
  explicit StoreCounters(BookieStoreImpl* store) : store_(store) {}
  int64_t BytesWritten() const override {
    return static_cast<int64_t>(store_->journal_stats().bytes_written);
  }
  int64_t JournalBusyNanos() const override {
    return static_cast<int64_t>(store_->journal_stats().busy_nanos_total);
  }
  int64_t LedgerBusyNanos() const override {
    return static_cast<int64_t>(store_->storage_stats().flush_busy_nanos);
  }

 private:
  BookieStoreImpl* const store_;
};

DaemonParts::DaemonParts() = default;
DaemonParts::~DaemonParts() = default;

DiskCheckResult DaemonParts::LastDisk() {
  absl::MutexLock l(&mu);
  return last_disk;
}

absl::Status OpenStorage(const DaemonOptions& options, DaemonParts& p) {
  p.registry = std::make_shared<prometheus::Registry>();
  p.journal_probe =
      std::make_unique<JournalProbe>(*p.registry, options.bookie_id);
  p.service_probe =
      std::make_unique<ServiceProbe>(*p.registry, options.bookie_id);
  StoreOptions so = options.store;
  so.journal.observer = p.journal_probe.get();
  // A ledger directory writes its flushes behind only on a disk no journal
  // is on; partitions of one disk are that disk.
  so.storage.shares_journal_disk =
      [sys_root = options.monitor.sys_root,
       journals = so.journal.dirs](const std::string& dir) {
        return monitor::PathSharesDisk(sys_root, dir, journals);
      };
  StartupReport report;
  auto store = BookieStoreImpl::Open(p.env, so, &report);
  if (!store.ok()) return store.status();
  p.store = std::move(*store);
  p.log->info(
      "journal replayed: {} records ({} entries), {} torn bytes cut, "
      "{} corrupt ranges skipped",
      report.journal.records, report.replayed_entries,
      report.journal.torn_bytes_cut, report.journal.skipped_ranges);
  return absl::OkStatus();
}

void InstallGcFilter(const DaemonOptions& options, DaemonParts& p) {
  auto uri = metadata::ParseStoreUri(options.metadata_uri);
  if (uri.ok() && uri->scheme == "mem" && uri->name.empty()) {
    p.log->warn(
        "metadata store {} is private to this process: GC deletes no "
        "ledgers",
        options.metadata_uri);
    return;
  }
  p.gc_filter = std::make_unique<MetadataLedgerFilter>(p.metadata.get());
  MetadataLedgerFilter* filter = p.gc_filter.get();
  p.store->storage()->SetDeletedLedgerFilter(
      [filter] { return filter->NewPass(); });
  const absl::Duration every = options.store.storage.gc_wait_time;
  if (every > absl::ZeroDuration()) {
    p.log->info(
        "GC every {} deletes ledgers whose metadata is gone from {}, "
        "re-reading each one's metadata first",
        absl::FormatDuration(every), options.metadata_uri);
  } else {
    p.log->warn("gcWaitTime=0: no background GC; deleted ledgers stay");
  }
}

absl::Status StartMonitor(const DaemonOptions& options, DaemonParts& p) {
  p.counters = std::make_unique<StoreCounters>(p.store.get());
  monitor::MonitorEnv menv;
  menv.counters = p.counters.get();
  auto mon = monitor::BaseMetricMonitor::Create(options.monitor, menv);
  if (!mon.ok()) return mon.status();
  p.monitor = std::move(*mon);
  return p.monitor->Start();
}

}  // namespace bk::bookie
