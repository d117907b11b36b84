#include "bookie/daemon/bookie_metrics.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include "common/histogram_bounds.h"

namespace bk::bookie {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

prometheus::Histogram::BucketBoundaries Exponential(double start, double factor,
                                                    int n) {
  prometheus::Histogram::BucketBoundaries b;
  double v = start;
  for (int i = 0; i < n; ++i, v *= factor) b.push_back(v);
  return b;
}

// Builds families with the bookie label on every sample.
class Families {
 public:
  explicit Families(const std::string& bookie) : bookie_(bookie) {}

  void Add(const std::string& name, const std::string& help, MetricType type,
           double value,
           std::vector<std::pair<std::string, std::string>> labels = {}) {
    MetricFamily* f = Find(name, help, type);
    ClientMetric m;
    m.label.push_back({"bookie", bookie_});
    for (auto& [k, v] : labels) m.label.push_back({k, v});
    if (type == MetricType::Counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
    f->metric.push_back(std::move(m));
  }
  void Counter(const std::string& name, const std::string& help, double v) {
    Add(name, help, MetricType::Counter, v);
  }
  void Gauge(const std::string& name, const std::string& help, double v,
             std::vector<std::pair<std::string, std::string>> labels = {}) {
    Add(name, help, MetricType::Gauge, v, std::move(labels));
  }
  std::vector<MetricFamily> Take() { return std::move(families_); }

 private:
  MetricFamily* Find(const std::string& name, const std::string& help,
                     MetricType type) {
    for (auto& f : families_) {
      if (f.name == name) return &f;
    }
    families_.push_back(MetricFamily{name, help, type, {}});
    return &families_.back();
  }
  const std::string& bookie_;
  std::vector<MetricFamily> families_;
};

}  // namespace

JournalProbe::JournalProbe(prometheus::Registry& registry,
                           const std::string& bookie_id) {
  const prometheus::Labels id{{"bookie", bookie_id}};
  group_entries_ = &prometheus::BuildHistogram()
                        .Name("bookie_journal_group_entries")
                        .Help("Records per journal group (one writev)")
                        .Labels(id)
                        .Register(registry)
                        .Add({}, Exponential(1, 2, 14));
  group_bytes_ = &prometheus::BuildHistogram()
                      .Name("bookie_journal_group_bytes")
                      .Help("Bytes per journal group")
                      .Labels(id)
                      .Register(registry)
                      .Add({}, Exponential(1024, 2, 14));
  sync_seconds_ =
      &prometheus::BuildHistogram()
           .Name("bookie_journal_sync_seconds")
           .Help("fdatasync latency of journal groups")
           .Labels(id)
           .Register(registry)
           .Add({}, ExponentialBounds(50e-6, 10, kLatencyBoundsPerOctave));
  write_seconds_ =
      &prometheus::BuildHistogram()
           .Name("bookie_journal_write_seconds")
           .Help("writev latency of journal groups")
           .Labels(id)
           .Register(registry)
           .Add({}, ExponentialBounds(10e-6, 2, kLatencyBoundsPerOctave));
  // An add's way through the journal, stage by stage: queue, write, sync
  // queue, sync, callback queue (BookKeeper's journal queue, force-write
  // queue and callback queue latencies). One observation per group.
  const auto waits = [&](const char* name, const char* help) {
    return &prometheus::BuildHistogram()
                .Name(name)
                .Help(help)
                .Labels(id)
                .Register(registry)
                .Add({}, ExponentialBounds(10e-6, 10, kLatencyBoundsPerOctave));
  };
  queue_seconds_ = waits(
      "bookie_journal_queue_seconds",
      "Time the oldest record of a journal group waited before the group's "
      "write started (journal thread busy, or the group wait)");
  sync_queue_seconds_ = waits(
      "bookie_journal_sync_queue_seconds",
      "Time a written journal group waited for the fdatasync covering it to "
      "start (the previous sync still running)");
  callback_queue_seconds_ =
      waits("bookie_journal_callback_queue_seconds",
            "Time a synced journal group waited for its callbacks to start "
            "(earlier groups' callbacks still running)");
}

void JournalProbe::OnGroup(const JournalGroupEvent& e) {
  group_entries_->Observe(static_cast<double>(e.records));
  group_bytes_->Observe(static_cast<double>(e.bytes));
  write_seconds_->Observe(static_cast<double>(e.write_nanos) * 1e-9);
  if (e.sync_nanos > 0) {
    sync_seconds_->Observe(static_cast<double>(e.sync_nanos) * 1e-9);
  }
  queue_seconds_->Observe(static_cast<double>(e.queue_nanos) * 1e-9);
  if (e.sync_queue_nanos >= 0) {
    sync_queue_seconds_->Observe(static_cast<double>(e.sync_queue_nanos) *
                                 1e-9);
  }
}

void JournalProbe::OnCallbacks(const JournalCallbackEvent& e) {
  callback_queue_seconds_->Observe(static_cast<double>(e.queue_nanos) * 1e-9);
}

StatsCollector::StatsCollector(std::string bookie_id, StatsSources sources)
    : bookie_id_(std::move(bookie_id)), sources_(std::move(sources)) {}

std::vector<MetricFamily> StatsCollector::Collect() const {
  Families f(bookie_id_);
  const JournalStats j = sources_.journal();
  f.Counter("bookie_journal_written_bytes_total",
            "Journal record bytes written", j.bytes_written);
  f.Counter("bookie_journal_records_total", "Journal records written",
            j.records_written);
  f.Counter("bookie_journal_groups_total", "Journal groups written",
            j.groups_written);
  f.Counter("bookie_journal_syncs_total", "Journal fdatasync calls", j.syncs);
  f.Counter("bookie_journal_busy_seconds_total",
            "Time the journal spent in write and sync",
            static_cast<double>(j.busy_nanos_total) * 1e-9);
  f.Counter("bookie_journal_failed_adds_total",
            "Adds the journal completed with an error", j.adds_failed);
  f.Counter("bookie_journal_padding_bytes_total",
            "Padding records written to end groups on 4 KiB boundaries",
            j.padding_bytes);
  f.Counter("bookie_journal_files_created_total", "Journal files created fresh",
            j.files_created);
  f.Counter("bookie_journal_files_reused_total",
            "Journal files made from retired ones (journalReuseFiles)",
            j.files_reused);
  f.Counter("bookie_journal_files_removed_total",
            "Retired journal files removed", j.files_removed);
  f.Gauge("bookie_journal_queue_depth", "Adds queued for the journal thread",
          j.queue_depth);

  const StorageStats s = sources_.storage();
  f.Gauge("bookie_write_cache_bytes", "Bytes held by the write cache",
          s.write_cache_bytes);
  f.Gauge("bookie_write_cache_entries", "Entries held by the write cache",
          s.write_cache_entries);
  f.Gauge("bookie_read_cache_bytes", "Bytes held by the read-ahead cache",
          s.read_cache_bytes);
  f.Counter("bookie_write_cache_hits_total", "Reads served by the write cache",
            s.write_cache_hits);
  f.Counter("bookie_read_cache_hits_total", "Reads served by the read cache",
            s.read_cache_hits);
  f.Counter("bookie_read_cache_misses_total", "Reads that went to an entry log",
            s.read_cache_misses);
  f.Gauge("bookie_read_cache_hit_ratio",
          "Share of reads served from the caches since start",
          s.read_cache_hit_ratio());
  f.Counter("bookie_throttled_adds_total",
            "Adds that waited for write-cache room", s.throttled_adds);
  f.Counter("bookie_write_cache_rejected_adds_total",
            "Adds refused after the throttle time", s.rejected_adds);
  f.Counter("bookie_corrupt_reads_total",
            "Reads that found a corrupt stored entry (never served)",
            s.corrupt_reads);
  f.Counter("bookie_flushes_total", "Write-cache flushes", s.flushes);
  f.Counter("bookie_flushed_bytes_total", "Bytes flushed to entry logs",
            s.flushed_bytes);
  f.Counter("bookie_flushed_entries_total", "Entries flushed to entry logs",
            s.flushed_entries);
  f.Counter("bookie_index_location_records_total",
            "Location records written to the index (one per run of a "
            "ledger's consecutive entries in one entry log)",
            s.index_location_records);
  f.Gauge("bookie_entry_log_bytes", "Bytes in entry logs on disk",
          s.entry_log_bytes);
  f.Counter("bookie_compacted_logs_total", "Entry logs compacted",
            s.compacted_logs);
  f.Counter("bookie_compaction_moved_bytes_total",
            "Live bytes copied by compaction", s.compaction_moved_bytes);
  f.Counter("bookie_compaction_reclaimed_bytes_total",
            "Disk bytes reclaimed by compaction and log removal",
            s.compaction_reclaimed_bytes);
  f.Counter("bookie_deleted_ledgers_total",
            "Ledgers deleted by GC because the metadata store no longer "
            "has them",
            s.deleted_ledgers);
  f.Counter("bookie_purged_ledgers_total",
            "Tombstones of deleted ledgers dropped by GC", s.purged_ledgers);
  f.Gauge("bookie_ledger_tombstones",
          "Deleted ledgers whose state is still kept (not purged yet)",
          s.ledger_tombstones);

  const MetadataLedgerFilter::Stats g = sources_.gc_filter();
  f.Counter("bookie_gc_metadata_syncs_total",
            "Metadata store syncs by GC, one before each pass's lookups",
            g.syncs);
  f.Counter("bookie_gc_metadata_reads_total",
            "Ledger metadata reads by GC to confirm a deletion",
            g.verify_reads);
  f.Counter("bookie_gc_metadata_errors_total",
            "GC lookups in the metadata store that failed (nothing is "
            "deleted on a failure; the pass stops deleting)",
            g.errors);

  const StoreStats st = sources_.store();
  f.Gauge("bookie_server_status",
          "1 when the bookie takes adds, 0 when read-only or failed",
          st.writable ? 1 : 0);
  f.Gauge("bookie_registered", "1 while registered in the metadata store",
          sources_.registered() ? 1 : 0);
  f.Counter("bookie_registration_failures_total",
            "Registrations in the metadata store that failed (retried with "
            "backoff; the bookie is unregistered meanwhile)",
            sources_.registration_failures
                ? static_cast<double>(sources_.registration_failures())
                : 0.0);
  f.Gauge("bookie_healthy",
          "0 after a failure only a restart clears (journal, ledger "
          "storage, checkpoint), else 1",
          st.healthy ? 1 : 0);
  f.Counter("bookie_journal_checkpoint_failures_total",
            "Flushes whose journal checkpoint failed (the first failure "
            "is sticky: later ones are not tried)",
            static_cast<double>(st.checkpoint_failures));

  const monitor::LoadReport r = sources_.load();
  f.Gauge("bookie_journal_io_util", "Journal device utilisation, percent",
          r.journal_io.util);
  f.Gauge("bookie_ledger_io_util", "Ledger device utilisation, percent",
          r.ledger_io.util);
  f.Gauge("bookie_cpu_used_rate", "CPU use of the allowed CPUs, percent",
          r.cpu_used_rate);
  f.Gauge("bookie_write_bytes_per_second",
          "Bytes written per second over the load window",
          r.write_bytes_per_second);
  f.Gauge("bookie_journal_device_write_bytes_per_second",
          "Bytes every writer on the journal's devices wrote per second over "
          "the load window (other bookies sharing the disk included)",
          r.journal_io.device_write_bytes_per_second);

  const DiskCheckResult d = sources_.disk();
  for (const DirUsage& u : d.dirs) {
    f.Gauge("bookie_disk_usage_ratio",
            "Used share of a ledger or journal "
            "directory's filesystem",
            u.usage, {{"dir", u.dir}});
    f.Gauge("bookie_disk_free_bytes", "Free bytes of a directory's filesystem",
            static_cast<double>(u.free_bytes), {{"dir", u.dir}});
  }
  return f.Take();
}

}  // namespace bk::bookie
