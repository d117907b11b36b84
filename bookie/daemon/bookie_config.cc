#include "bookie/daemon/bookie_config.h"

namespace bk::bookie {
namespace {

void AddIdentityAndNetwork(ConfigTable<DaemonOptions>& t) {
  t.Value("bookieId", BK_FIELD(bookie_id), "-", {},
          "unique id of this bookie; empty: advertisedAddress:bookiePort");
  t.Value("advertisedAddress", BK_FIELD(advertised_address), "-", {},
          "host name or address clients use to reach this bookie");
  t.Value("listeningInterface", BK_FIELD(listen_address), "-", {},
          "address the gRPC and HTTP servers bind to");
  t.Value("bookiePort", BK_FIELD(grpc_port), "port number", {0, 65535},
          "gRPC port");
  t.Value("httpServerEnabled", BK_FIELD(http_enabled), "-", {},
          "serve /metrics, /health, /ready and the admin API over HTTP");
  t.Value("httpServerPort", BK_FIELD(http_port), "port number", {0, 65535},
          "HTTP port");
  t.Value("httpServerAdminEnabled", BK_FIELD(http_admin_enabled), "-", {},
          "allow the admin HTTP API's changes (PUT, POST, DELETE: read-only "
          "mode, GC, decommission), each with 'Authorization: Bearer' and "
          "the token of httpServerAdminTokenFile; reads stay open");
  t.Value("httpServerAdminTokenFile", BK_FIELD(http_admin_token_file), "-", {},
          "file holding the admin API's bearer token on its first line, mode "
          "0600; required when httpServerAdminEnabled=true");
  t.Bytes("httpServerMaxBodyBytes", BK_FIELD(http_max_body_bytes), "bytes", {},
          "longest HTTP request body read (the admin API's PUT and POST), 1 "
          "KiB to 64 MiB; a longer one is refused with 413, unread");
  t.Value("networkLocation", BK_FIELD(network_location), "-", {},
          "this bookie's /region/rack for rack-aware placement");
  t.Value("metadataServiceUri", BK_FIELD(metadata_uri), "-", {},
          "metadata store: zk://host:port[,host:port]/root or mem://");
  t.Millis("zkTimeout", BK_FIELD(metadata_session_timeout), {1000, 600000},
           "metadata session timeout");
  t.Value("zkEnableSecurity", BK_FIELD(zk_enable_security), "-", {},
          "authenticate to ZooKeeper with the digest credentials of "
          "zkDigestFile and create every znode readable and writable by them "
          "only (creator-all ACL)");
  t.Value("zkDigestFile", BK_FIELD(zk_digest_file), "-", {},
          "file holding the cluster's ZooKeeper credentials, one line "
          "user:password, mode 0600");
  // TLS on the gRPC port (PEM files).
  t.Value("tlsCertificatePath", BK_FIELD(tls.certificate_path), "-", {},
          "server certificate chain (PEM); empty: plaintext gRPC");
  t.Value("tlsKeyStore", BK_FIELD(tls.key_path), "-", {},
          "server private key (PEM, unencrypted; keep it mode 0600)");
  t.Value("tlsTrustStore", BK_FIELD(tls.trust_path), "-", {},
          "CA certificates (PEM) that client certificates must chain to");
  t.Value("tlsClientAuthentication", BK_FIELD(tls.require_client_auth), "-", {},
          "require and verify client certificates (mTLS)");
}

void AddJournal(ConfigTable<DaemonOptions>& t) {
  t.Value("journalDirectories", BK_FIELD(store.journal.dirs), "-", {},
          "journal directories, comma-separated; ledgers hashed over them");
  t.Millis("journalMaxGroupWaitMSec", BK_FIELD(store.journal.max_group_wait),
           {0, 10000}, "longest wait before a journal group is synced");
  t.Bytes("journalBufferedWritesThreshold",
          BK_FIELD(store.journal.buffered_writes_threshold_bytes), "bytes", {},
          "sync a group once it holds this many bytes");
  t.Value("journalBufferedEntriesThreshold",
          BK_FIELD(store.journal.buffered_entries_threshold), "entries",
          {0, 1e9}, "sync a group once it holds this many entries; 0 = off");
  t.Value("journalFlushWhenQueueEmpty",
          BK_FIELD(store.journal.flush_when_queue_empty), "-", {},
          "sync as soon as the journal queue runs dry");
  t.Value("journalAdaptiveGroupCommit",
          BK_FIELD(store.journal.adaptive_group_commit), "-", {},
          "write a group at once when no add is queued and nothing is being "
          "synced (waiting would only add latency), and sync such a group "
          "of up to 64 adds on the journal thread (one thread wake-up fewer); "
          "while a sync runs, groups fill up to the thresholds as before");
  t.Value("journalMaxSyncsInFlight",
          BK_FIELD(store.journal.max_syncs_in_flight), "syncs", {1, 8},
          "fdatasyncs of a journal that may run at once: with more than one, "
          "groups written while a sync runs are synced at once beside it "
          "instead of after it; adds still complete in order, each after "
          "its own sync");
  t.Value("journalSyncData", BK_FIELD(store.journal.sync_data), "-", {},
          "fdatasync journal groups; false acknowledges unsynced data "
          "(unsafe)");
  t.MiB("journalMaxSizeMB", BK_FIELD(store.journal.max_file_size_bytes),
        {1, 1 << 20}, "journal file size before roll");
  t.MiB("journalPreAllocSizeMB", BK_FIELD(store.journal.preallocate_bytes),
        {1, 1024}, "journal preallocation step");
  t.Value("journalMaxBackups", BK_FIELD(store.journal.max_backups), "files",
          {0, 1000}, "old journal files kept after the checkpoint passed them");
  t.Value("journalDirectIo", BK_FIELD(store.journal.direct_io), "-", {},
          "write journal groups with O_DIRECT from an aligned buffer, padded "
          "to 4 KiB (falls back to the page cache where O_DIRECT is refused)");
  t.Value("journalReuseFiles", BK_FIELD(store.journal.reuse_files), "-", {},
          "reuse journal files the checkpoint has passed (beyond "
          "journalMaxBackups, at most two kept) instead of removing them and "
          "creating new ones: writing over old blocks makes each group's "
          "sync cheaper");
  t.Value("journalRemoveFromPageCache",
          BK_FIELD(store.journal.remove_from_page_cache), "-", {},
          "drop each group's pages from the page cache once synced "
          "(POSIX_FADV_DONTNEED), so the journal keeps writing into a few "
          "warm pages instead of taking fresh ones (BookKeeper's key and "
          "default; the journal is read only at replay)");
  t.Value("journalSkipCorruptRecords",
          BK_FIELD(store.journal.skip_corrupt_records), "-", {},
          "on replay, skip (and report) a corrupt record mid-journal instead "
          "of refusing to start; its entries are lost. Skipping resyncs on "
          "the next valid record, so bytes inside a damaged record's payload "
          "that themselves form a valid record (an entry holding a journal "
          "record) can be replayed as one: a last resort");
  t.Value("journalCutNewestTailAt", BK_FIELD(store.journal.cut_newest_tail_at),
          "-", {},
          "for one start after a power loss: <journal file>:<offset>, as the "
          "refusal to start prints it; cuts only that newest file at only "
          "that offset, where invalid bytes are followed by valid records");
}

void AddLedgerStorage(ConfigTable<DaemonOptions>& t) {
  t.Value("ledgerDirectories", BK_FIELD(store.storage.ledger_dirs), "-", {},
          "ledger storage directories (one per disk), comma-separated");
  t.MiB("dbStorage_writeCacheMaxSizeMb",
        BK_FIELD(store.storage.write_cache_bytes), {1, 1 << 20},
        "write cache budget across both halves");
  t.Value("writeCachePreTouch", BK_FIELD(write_cache_pre_touch), "-", {},
          "reserve the write cache's worth of memory for received entries at "
          "start (transparent huge pages where the kernel gives them) and "
          "touch every page of it, so the first load after a start does not "
          "fault it in page by page; the bookie's resident memory includes "
          "it from the start. false: the memory is still reserved, and "
          "faulted in as adds first use it");
  t.Millis("dbStorage_maxThrottleTimeMs",
           BK_FIELD(store.storage.max_throttle_time), {0, 600000},
           "longest an add waits for write-cache space before "
           "ETOOMANYREQUESTS");
  t.MiB("dbStorage_readAheadCacheMaxSizeMb",
        BK_FIELD(store.storage.read_cache_bytes), {0, 1 << 20},
        "read-ahead cache budget, kept as four segments that are evicted "
        "whole, oldest first; an entry larger than a segment is not kept");
  t.Value("dbStorage_readAheadCacheBatchSize",
          BK_FIELD(store.storage.read_ahead_batch_size), "entries", {0, 1e6},
          "entries read ahead after a cache miss");
  t.Bytes("logSizeLimit", BK_FIELD(store.storage.entry_log_size_limit), "bytes",
          {}, "entry log size before roll");
  t.Bytes("flushEntrylogBytes", BK_FIELD(store.storage.flush_entry_log_bytes),
          "bytes", {},
          "a write-cache flush writes the entry log in steps of this many "
          "bytes, so no big write holds up the journals on the same disk: "
          "on a journal's disk (partitions of one disk are one disk) each "
          "step is synced before the next is copied; on a disk of its own "
          "each is written behind (sync_file_range) while the next is "
          "copied, and the log synced once at the end; 0 = all of it at the "
          "end");
  t.Value("entryLogRemoveFromPageCache",
          BK_FIELD(store.storage.entry_log_remove_from_page_cache), "-", {},
          "after each entry-log sync of a flush, drop from the page cache "
          "the synced pages more than entryLogPageCacheKeepBytes behind the "
          "log's end, so flushes write into warm pages instead of fresh "
          "ones; older entries are then read through the read cache or the "
          "disk");
  t.Bytes("entryLogPageCacheKeepBytes",
          BK_FIELD(store.storage.entry_log_page_cache_keep_bytes), "bytes", {},
          "the newest bytes of each entry log left in the page cache for "
          "readers catching up (entryLogRemoveFromPageCache); 0 drops all "
          "synced pages");
  t.Value("entryLogDirectIo", BK_FIELD(store.storage.entry_log_direct_io), "-",
          {},
          "write entry logs with O_DIRECT from an aligned buffer, each sync "
          "padded to 4 KiB (no page-cache copy, no write-back, nothing to "
          "drop); falls back to the page cache where O_DIRECT is refused. "
          "Bookies older than this option cannot read logs written with it");
  t.Millis("flushInterval", BK_FIELD(store.storage.flush_interval),
           {10, 3600000}, "longest time between write-cache flushes");
  t.Millis("gcWaitTime", BK_FIELD(store.storage.gc_wait_time), {1000, 86400000},
           "time between garbage collection passes");
  t.Value("minorCompactionThreshold",
          BK_FIELD(store.storage.minor_compaction_threshold), "fraction",
          {0, 1},
          "compact entry logs whose live fraction is below this (minor)");
  t.Seconds("minorCompactionInterval",
            BK_FIELD(store.storage.minor_compaction_interval), {0, 1e7},
            "time between minor compactions; 0 = off");
  t.Value("majorCompactionThreshold",
          BK_FIELD(store.storage.major_compaction_threshold), "fraction",
          {0, 1},
          "compact entry logs whose live fraction is below this (major)");
  t.Seconds("majorCompactionInterval",
            BK_FIELD(store.storage.major_compaction_interval), {0, 1e8},
            "time between major compactions; 0 = off");
  t.Bytes("compactionRateByBytes",
          BK_FIELD(store.storage.compaction_rate_bytes_per_second), "bytes/s",
          {}, "compaction throttle");
  t.Seconds("deletedLedgerRetentionSeconds",
            BK_FIELD(store.storage.deleted_ledger_retention), {0, 1e8},
            "least time a deleted ledger's state is kept so late adds get "
            "NotFound; GC then drops it");
}

void AddDiskAndRequests(ConfigTable<DaemonOptions>& t) {
  t.Value("diskUsageThreshold", BK_FIELD(disk.usage_threshold), "fraction",
          {0, 1}, "disk use fraction above which the bookie turns read-only");
  t.Value("diskUsageWarnThreshold", BK_FIELD(disk.warn_threshold), "fraction",
          {0, 1}, "disk use fraction above which the bookie warns");
  t.Value("diskUsageLwmThreshold", BK_FIELD(disk.lwm_threshold), "fraction",
          {0, 1},
          "disk use fraction below which a read-only bookie turns writable");
  t.Millis("diskCheckInterval", BK_FIELD(disk.check_interval), {10, 3600000},
           "time between disk checks");
  t.Value("readOnlyModeEnabled", BK_FIELD(read_only_mode_enabled), "-", {},
          "turn read-only on full disks; false: stop the bookie instead");
  t.Value("forceReadOnlyBookie", BK_FIELD(force_read_only), "-", {},
          "start and stay read-only (draining)");
  t.Value("maxPendingAddRequestsPerThread", BK_FIELD(service.max_pending_adds),
          "requests", {1, 1e8}, "adds in flight before ETOOMANYREQUESTS");
  t.Value("maxAddsInProgressPerStream",
          BK_FIELD(service.max_adds_in_progress_per_stream), "requests",
          {1, 1e9},
          "unanswered adds on one stream before the bookie stops reading it");
  t.Value("maxPendingReadRequestsPerThread",
          BK_FIELD(service.max_pending_reads), "requests", {1, 1e8},
          "reads in flight before ETOOMANYREQUESTS");
  t.Millis("rangeReadTimeoutMs", BK_FIELD(service.range_read_timeout),
           {100, 86400000},
           "longest life of a range-read stream; then it is cancelled");
  t.Value("rangeReadNice", BK_FIELD(service.range_read_nice), "-", {0, 19},
          "0: range reads run on gRPC's threads; 1..19: on a thread of their "
          "own at that niceness, yielding the CPU to adds");
  t.Value("tailEntriesEnabled", BK_FIELD(service.tail_entries), "-", {},
          "serve TailEntries streams to tailing readers; off, they get "
          "UNIMPLEMENTED (as from a bookie that predates them) and long-poll "
          "this bookie instead");
  t.Bytes("nettyMaxFrameSizeBytes", BK_FIELD(service.max_message_bytes),
          "bytes", {},
          "largest gRPC message accepted; larger adds get EBADREQ");
  t.Value("serverNumIOThreads", BK_FIELD(server_io_threads), "threads",
          {0, 256},
          "accepted for BookKeeper configurations and ignored (a non-zero "
          "value is warned about at start): the gRPC callback server runs "
          "on gRPC's own threads, which gRPC 1.51 does not let a program "
          "size");
}

void AddMonitorAndOperation(ConfigTable<DaemonOptions>& t) {
  // Load reporting (BP-65).
  t.Value("baseMetricMonitorEnabled", BK_FIELD(monitor.enabled), "-", {},
          "sample own disk, CPU and write load for GetBookieInfo");
  t.Millis("baseMetricMonitorStatIntervalMs", BK_FIELD(monitor.stat_interval),
           {1000, 3600000}, "load sampling interval");
  t.Value("baseMetricMonitorMetricSlideWindowSize",
          BK_FIELD(monitor.slide_window_size), "samples", {1, 3600},
          "samples averaged per load report");
  t.Value("journalDeviceShared", BK_FIELD(monitor.journal_device_shared), "-",
          {},
          "the journal device is shared with other bookies: report own busy "
          "time instead of device utilisation");
  t.Choice("logLevel", BK_FIELD(log_level),
           {log::Level::kDebug, log::Level::kInfo, log::Level::kWarn,
            log::Level::kError, log::Level::kOff},
           log::LevelName, "debug, info, warn, error or off");
  t.Millis("shutdownTimeoutMs", BK_FIELD(shutdown_timeout), {100, 600000},
           "longest a graceful shutdown may take");
}

}  // namespace

const ConfigTable<DaemonOptions>& BookieConfigTable() {
  static const auto* table = [] {
    auto* t = new ConfigTable<DaemonOptions>();
    AddIdentityAndNetwork(*t);
    AddJournal(*t);
    AddLedgerStorage(*t);
    AddDiskAndRequests(*t);
    AddMonitorAndOperation(*t);
    return t;
  }();
  return *table;
}

const ConfigSchema& BookieConfigSchema() {
  return BookieConfigTable().schema();
}

}  // namespace bk::bookie
