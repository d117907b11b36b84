#include "bookie/daemon/daemon_options.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bk::bookie {
namespace {

absl::Status CheckLocation(const std::string& loc) {
  std::vector<std::string> parts = absl::StrSplit(loc, '/');
  // "/region/rack" splits into "", "region", "rack".
  if (parts.size() != 3 || !parts[0].empty() || parts[1].empty() ||
      parts[2].empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "networkLocation '", loc, "' is not of the form /region/rack"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DaemonOptions> DaemonOptionsFromConfig(const Config& c) {
  DaemonOptions o;
  o.advertised_address = c.GetString("advertisedAddress");
  o.listen_address = c.GetString("listeningInterface");
  o.grpc_port = static_cast<int>(c.GetInt("bookiePort"));
  o.http_enabled = c.GetBool("httpServerEnabled");
  o.http_port = static_cast<int>(c.GetInt("httpServerPort"));
  o.bookie_id = c.GetString("bookieId");
  if (o.bookie_id.empty()) {
    if (o.grpc_port == 0) {
      return absl::InvalidArgumentError(
          "bookieId must be set when bookiePort is 0 (the id cannot follow a "
          "port picked at random)");
    }
    o.bookie_id = absl::StrCat(o.advertised_address, ":", o.grpc_port);
  }
  if (absl::StrContains(o.bookie_id, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("bookieId '", o.bookie_id, "' may not contain '/'"));
  }
  o.network_location = c.GetString("networkLocation");
  if (absl::Status s = CheckLocation(o.network_location); !s.ok()) return s;
  o.metadata_uri = c.GetString("metadataServiceUri");
  o.metadata_session_timeout = absl::Milliseconds(c.GetInt("zkTimeout"));

  o.tls.certificate_path = c.GetString("tlsCertificatePath");
  o.tls.key_path = c.GetString("tlsKeyStore");
  o.tls.trust_path = c.GetString("tlsTrustStore");
  o.tls.require_client_auth = c.GetBool("tlsClientAuthentication");

  JournalOptions& j = o.store.journal;
  j.dirs = c.GetList("journalDirectories");
  if (j.dirs.empty()) {
    return absl::InvalidArgumentError("journalDirectories is empty");
  }
  j.max_group_wait = absl::Milliseconds(c.GetInt("journalMaxGroupWaitMSec"));
  j.buffered_writes_threshold_bytes =
      c.GetBytes("journalBufferedWritesThreshold");
  j.buffered_entries_threshold =
      static_cast<uint64_t>(c.GetInt("journalBufferedEntriesThreshold"));
  j.flush_when_queue_empty = c.GetBool("journalFlushWhenQueueEmpty");
  j.adaptive_group_commit = c.GetBool("journalAdaptiveGroupCommit");
  j.sync_data = c.GetBool("journalSyncData");
  j.max_file_size_bytes = static_cast<uint64_t>(c.GetInt("journalMaxSizeMB"))
                          << 20;
  j.preallocate_bytes = static_cast<uint64_t>(c.GetInt("journalPreAllocSizeMB"))
                        << 20;
  j.max_backups = static_cast<int>(c.GetInt("journalMaxBackups"));
  j.skip_corrupt_records = c.GetBool("journalSkipCorruptRecords");
  j.direct_io = c.GetBool("journalDirectIo");
  j.reuse_files = c.GetBool("journalReuseFiles");
  if (absl::Status s = j.Validate(); !s.ok()) return s;

  LedgerStorageOptions& st = o.store.storage;
  st.ledger_dirs = c.GetList("ledgerDirectories");
  if (st.ledger_dirs.empty()) {
    return absl::InvalidArgumentError("ledgerDirectories is empty");
  }
  st.write_cache_bytes =
      static_cast<uint64_t>(c.GetInt("dbStorage_writeCacheMaxSizeMb")) << 20;
  st.max_throttle_time =
      absl::Milliseconds(c.GetInt("dbStorage_maxThrottleTimeMs"));
  st.read_cache_bytes =
      static_cast<uint64_t>(c.GetInt("dbStorage_readAheadCacheMaxSizeMb"))
      << 20;
  st.read_ahead_batch_size =
      static_cast<int>(c.GetInt("dbStorage_readAheadCacheBatchSize"));
  st.entry_log_size_limit = c.GetBytes("logSizeLimit");
  st.flush_interval = absl::Milliseconds(c.GetInt("flushInterval"));
  st.flush_entry_log_bytes = c.GetBytes("flushEntrylogBytes");
  st.gc_wait_time = absl::Milliseconds(c.GetInt("gcWaitTime"));
  st.minor_compaction_threshold = c.GetDouble("minorCompactionThreshold");
  st.minor_compaction_interval =
      absl::Seconds(c.GetInt("minorCompactionInterval"));
  st.major_compaction_threshold = c.GetDouble("majorCompactionThreshold");
  st.major_compaction_interval =
      absl::Seconds(c.GetInt("majorCompactionInterval"));
  st.compaction_rate_bytes_per_second = c.GetBytes("compactionRateByBytes");
  st.deleted_ledger_retention =
      absl::Seconds(c.GetInt("deletedLedgerRetentionSeconds"));
  if (st.minor_compaction_threshold > st.major_compaction_threshold) {
    return absl::InvalidArgumentError(
        "minorCompactionThreshold is above majorCompactionThreshold");
  }

  o.disk.usage_threshold = c.GetDouble("diskUsageThreshold");
  o.disk.warn_threshold = c.GetDouble("diskUsageWarnThreshold");
  o.disk.lwm_threshold = c.GetDouble("diskUsageLwmThreshold");
  o.disk.check_interval = absl::Milliseconds(c.GetInt("diskCheckInterval"));
  if (absl::Status s = o.disk.Validate(); !s.ok()) return s;
  o.read_only_mode_enabled = c.GetBool("readOnlyModeEnabled");
  o.force_read_only = c.GetBool("forceReadOnlyBookie");

  o.service.max_pending_adds = c.GetInt("maxPendingAddRequestsPerThread");
  o.service.max_pending_reads = c.GetInt("maxPendingReadRequestsPerThread");
  o.service.max_message_bytes = c.GetBytes("nettyMaxFrameSizeBytes");

  o.monitor.enabled = c.GetBool("baseMetricMonitorEnabled");
  o.monitor.stat_interval =
      absl::Milliseconds(c.GetInt("baseMetricMonitorStatIntervalMs"));
  o.monitor.slide_window_size =
      static_cast<int>(c.GetInt("baseMetricMonitorMetricSlideWindowSize"));
  o.monitor.journal_dirs = j.dirs;
  o.monitor.ledger_dirs = st.ledger_dirs;
  o.monitor.journal_device_shared = c.GetBool("journalDeviceShared");

  auto level = log::ParseLevel(c.GetString("logLevel"));
  if (!level.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("logLevel: ", level.status().message()));
  }
  o.log_level = *level;
  o.shutdown_timeout = absl::Milliseconds(c.GetInt("shutdownTimeoutMs"));
  o.testing_sync_delay = absl::Milliseconds(c.GetInt("testingSyncDelayMs"));
  o.testing_fail_sync_nth = c.GetInt("testingFailSyncNth");
  o.testing_fail_sync_path = c.GetString("testingFailSyncPath");
  return o;
}

}  // namespace bk::bookie
