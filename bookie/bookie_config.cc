#include "bookie/bookie_config.h"

namespace bk::bookie {
namespace {

using T = OptionType;

ConfigSchema* Build() {
  auto* s = new ConfigSchema();
  auto add = [s](const char* key, T type, const char* def, const char* help,
                 double min = 1, double max = 0, bool secret = false) {
    s->Add(OptionDef{key, type, def, help, secret, min, max});
  };
  // Identity and network.
  add("bookieId", T::kString, "",
      "unique id of this bookie; empty: advertisedAddress:bookiePort");
  add("advertisedAddress", T::kString, "127.0.0.1",
      "host name or address clients use to reach this bookie");
  add("listeningInterface", T::kString, "0.0.0.0",
      "address the gRPC and HTTP servers bind to");
  add("bookiePort", T::kInt, "3181", "gRPC port", 0, 65535);
  add("httpServerEnabled", T::kBool, "true",
      "serve /metrics, /health and /ready over HTTP");
  add("httpServerPort", T::kInt, "8000", "HTTP port", 0, 65535);
  add("networkLocation", T::kString, "/default-region/default-rack",
      "this bookie's /region/rack for rack-aware placement");
  add("metadataServiceUri", T::kString, "zk://127.0.0.1:2181/ledgers",
      "metadata store: zk://host:port[,host:port]/root or mem://");
  add("zkTimeout", T::kInt, "10000", "metadata session timeout, ms", 1000,
      600000);
  // TLS on the gRPC port (PEM files).
  add("tlsCertificatePath", T::kString, "",
      "server certificate chain (PEM); empty: plaintext gRPC");
  add("tlsKeyStore", T::kString, "",
      "server private key (PEM, unencrypted; keep it mode 0600)");
  add("tlsTrustStore", T::kString, "",
      "CA certificates (PEM) that client certificates must chain to");
  add("tlsClientAuthentication", T::kBool, "false",
      "require and verify client certificates (mTLS)");
  // Journal.
  add("journalDirectories", T::kList, "/tmp/bk-txn",
      "journal directories, comma-separated; ledgers hashed over them");
  add("journalMaxGroupWaitMSec", T::kInt, "2",
      "longest wait before a journal group is synced, ms", 0, 10000);
  add("journalBufferedWritesThreshold", T::kBytes, "512KiB",
      "sync a group once it holds this many bytes");
  add("journalBufferedEntriesThreshold", T::kInt, "0",
      "sync a group once it holds this many entries; 0 = off", 0, 1e9);
  add("journalFlushWhenQueueEmpty", T::kBool, "false",
      "sync as soon as the journal queue runs dry");
  add("journalAdaptiveGroupCommit", T::kBool, "true",
      "write a group at once when no add is queued and nothing is being "
      "synced (waiting would only add latency); while a sync runs, groups "
      "fill up to the thresholds as before");
  add("journalSyncData", T::kBool, "true",
      "fdatasync journal groups; false acknowledges unsynced data (unsafe)");
  add("journalMaxSizeMB", T::kInt, "2048", "journal file size before roll, MB",
      1, 1 << 20);
  add("journalPreAllocSizeMB", T::kInt, "16", "journal preallocation step, MB",
      1, 1024);
  add("journalMaxBackups", T::kInt, "5",
      "old journal files kept after the checkpoint passed them", 0, 1000);
  add("journalDirectIo", T::kBool, "false",
      "write journal groups with O_DIRECT from an aligned buffer, padded to "
      "4 KiB (falls back to the page cache where O_DIRECT is refused)");
  add("journalReuseFiles", T::kBool, "true",
      "reuse journal files the checkpoint has passed (beyond "
      "journalMaxBackups, at most two kept) instead of removing them and "
      "creating new ones: writing over old blocks makes each group's sync "
      "cheaper");
  add("journalSkipCorruptRecords", T::kBool, "false",
      "on replay, skip (and report) a corrupt record mid-journal instead of "
      "refusing to start");
  // Ledger storage.
  add("ledgerDirectories", T::kList, "/tmp/bk-data",
      "ledger storage directories (one per disk), comma-separated");
  add("dbStorage_writeCacheMaxSizeMb", T::kInt, "64",
      "write cache budget across both halves, MB", 1, 1 << 20);
  add("dbStorage_maxThrottleTimeMs", T::kInt, "10000",
      "longest an add waits for write-cache space before ETOOMANYREQUESTS, ms",
      0, 600000);
  add("dbStorage_readAheadCacheMaxSizeMb", T::kInt, "32",
      "read-ahead cache budget, MB", 0, 1 << 20);
  add("dbStorage_readAheadCacheBatchSize", T::kInt, "100",
      "entries read ahead after a cache miss", 0, 1e6);
  add("logSizeLimit", T::kBytes, "1GiB", "entry log size before roll");
  add("flushEntrylogBytes", T::kBytes, "1MiB",
      "a write-cache flush syncs the entry log after every this many bytes, "
      "so one big sync never holds up the journals on the same disk; 0 = "
      "only at the end of the flush");
  add("flushInterval", T::kInt, "60000",
      "longest time between write-cache flushes, ms", 10, 3600000);
  add("gcWaitTime", T::kInt, "900000",
      "time between garbage collection passes, ms", 1000, 86400000);
  add("minorCompactionThreshold", T::kDouble, "0.2",
      "compact entry logs whose live fraction is below this (minor)", 0, 1);
  add("minorCompactionInterval", T::kInt, "3600",
      "time between minor compactions, s; 0 = off", 0, 1e7);
  add("majorCompactionThreshold", T::kDouble, "0.8",
      "compact entry logs whose live fraction is below this (major)", 0, 1);
  add("majorCompactionInterval", T::kInt, "86400",
      "time between major compactions, s; 0 = off", 0, 1e8);
  add("compactionRateByBytes", T::kBytes, "1000000",
      "compaction throttle, bytes per second");
  add("deletedLedgerRetentionSeconds", T::kInt, "3600",
      "least time a deleted ledger's state is kept so late adds get "
      "NotFound; GC then drops it, s",
      0, 1e8);
  // Disk usage.
  add("diskUsageThreshold", T::kDouble, "0.95",
      "disk use fraction above which the bookie turns read-only", 0, 1);
  add("diskUsageWarnThreshold", T::kDouble, "0.90",
      "disk use fraction above which the bookie warns", 0, 1);
  add("diskUsageLwmThreshold", T::kDouble, "0.90",
      "disk use fraction below which a read-only bookie turns writable", 0, 1);
  add("diskCheckInterval", T::kInt, "10000", "time between disk checks, ms", 10,
      3600000);
  add("readOnlyModeEnabled", T::kBool, "true",
      "turn read-only on full disks instead of shutting down");
  add("forceReadOnlyBookie", T::kBool, "false",
      "start and stay read-only (draining)");
  // Requests.
  add("maxPendingAddRequestsPerThread", T::kInt, "10000",
      "adds in flight before ETOOMANYREQUESTS", 1, 1e8);
  add("maxPendingReadRequestsPerThread", T::kInt, "10000",
      "reads in flight before ETOOMANYREQUESTS", 1, 1e8);
  add("nettyMaxFrameSizeBytes", T::kBytes, "5MiB",
      "largest gRPC message accepted; larger adds get EBADREQ");
  add("serverNumIOThreads", T::kInt, "0",
      "gRPC completion threads; 0 = number of cores", 0, 256);
  // Load reporting (BP-65).
  add("baseMetricMonitorEnabled", T::kBool, "true",
      "sample own disk, CPU and write load for GetBookieInfo");
  add("baseMetricMonitorStatIntervalMs", T::kInt, "1000",
      "load sampling interval, ms", 1000, 3600000);
  add("baseMetricMonitorMetricSlideWindowSize", T::kInt, "3",
      "samples averaged per load report", 1, 3600);
  add("journalDeviceShared", T::kBool, "false",
      "the journal device is shared with other bookies: report own busy "
      "time instead of device utilisation");
  // Operation.
  add("logLevel", T::kString, "info", "debug, info, warn, error or off");
  add("shutdownTimeoutMs", T::kInt, "30000",
      "longest a graceful shutdown may take, ms", 100, 600000);
  add("testingSyncDelayMs", T::kInt, "0",
      "TESTING AID: slow every journal and entry-log sync by this many ms "
      "(fault Env), to make a slow bookie on purpose; 0 = off",
      0, 60000);
  add("testingFailSyncNth", T::kInt, "0",
      "TESTING AID: the Nth sync (counted from start) of a file whose path "
      "contains testingFailSyncPath fails with EIO (fault Env), to test a "
      "failing disk; 0 = off",
      0, 100000);
  add("testingFailSyncPath", T::kString, ".jnl",
      "TESTING AID: which files testingFailSyncNth counts: a path substring "
      "(.jnl: journal files, .log: entry logs)");
  return s;
}

}  // namespace

const ConfigSchema& BookieConfigSchema() {
  static const ConfigSchema* schema = Build();
  return *schema;
}

}  // namespace bk::bookie
