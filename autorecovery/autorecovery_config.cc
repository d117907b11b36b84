#include "autorecovery/autorecovery_config.h"

#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"

namespace bk::autorecovery {

const ConfigTable<AutoRecoveryOptions>& AutoRecoveryConfigTable() {
  static const auto* table = [] {
    auto* t = new ConfigTable<AutoRecoveryOptions>();
    t->Value("metadataServiceUri", BK_FIELD(metadata_uri), "-", {},
             "metadata store: zk://host:port[,host:port]/root or mem://name");
    t->Millis("zkTimeout", BK_FIELD(zk_timeout), {1000, 600000},
              "metadata session timeout; a dead auditor is replaced within "
              "about this long");
    t->Value("zkEnableSecurity", BK_FIELD(zk_enable_security), "-", {},
             "authenticate to ZooKeeper with the digest credentials of "
             "zkDigestFile and create znodes readable and writable by them "
             "only");
    t->Value("zkDigestFile", BK_FIELD(zk_digest_file), "-", {},
             "file holding the cluster's ZooKeeper credentials, one line "
             "user:password, mode 0600");
    t->Value("autoRecoveryId", BK_FIELD(id), "-", {},
             "this process's name in the auditor election and in ledger "
             "locks; empty: hostname:pid");
    t->Seconds("lostBookieRecoveryDelay", BK_FIELD(lost_bookie_recovery_delay),
               {0, 1e7},
               "how long a bookie may be missing before its ledgers are "
               "marked under-replicated; a value set cluster-wide "
               "(bkctl replication delay) overrides it");
    t->Seconds("auditorPeriodicBookieCheckInterval",
               BK_FIELD(auditor_periodic_bookie_check_interval), {1, 1e8},
               "a full audit of ledgers against registered bookies at least "
               "this often");
    t->Seconds("auditorPeriodicCheckInterval",
               BK_FIELD(auditor_periodic_check_interval), {0, 1e8},
               "how often the auditor checks that live bookies hold every "
               "entry of the fragments they should (a wiped disk, a lost "
               "ledger directory) and marks the ledgers that lack some; 0: "
               "never");
    t->Millis("openLedgerRereplicationGracePeriod",
              BK_FIELD(open_ledger_rereplication_grace_period), {0, 1e10},
              "an open ledger's last segment is left to its writer this long "
              "after the ledger is marked, then the ledger is recovered");
    t->Value("rereplicationEntryBatchSize",
             BK_FIELD(rereplication_entry_batch_size), "entries", {1, 100000},
             "entries per chunk of a copy: a chunk is streamed from one "
             "replica and written to the new bookie as it arrives, a few "
             "chunks at a time");
    t->Value("autoRecoveryWorkers", BK_FIELD(workers), "threads", {1, 64},
             "replication workers in this process, each repairing its own "
             "under-replicated ledger at the same time");
    t->Value("replicationRateByBytes", BK_FIELD(replication_rate_by_bytes),
             "bytes per second", {-1, 1e12},
             "re-replication rate limit of this process; <= 0: unthrottled");
    t->Millis("rwRereplicateBackoffMs", BK_FIELD(rw_rereplicate_backoff),
              {0, 1e8}, "a ledger whose repair failed is retried after this");
    t->Millis("autoRecoveryPollIntervalMs", BK_FIELD(poll_interval), {10, 1e7},
              "how often the auditor checks the bookies and an idle worker "
              "looks for marked ledgers");
    t->Value("ledgerPasswordFile", BK_FIELD(ledger_password_file), "-", {},
             "the cluster's ledger passwords, one per line, mode 0600 (a "
             "ledger's entries are written with its master key)");
    t->Value("prometheusStatsHttpPort", BK_FIELD(prometheus_stats_http_port),
             "port number", {0, 65535},
             "port autorecovery serves its /metrics on (bkctl autorecovery or "
             "a bookie running it); 0: none");
    return t;
  }();
  return *table;
}

absl::StatusOr<AutoRecoveryOptions> AutoRecoveryOptionsFromKeys(
    const std::map<std::string, std::string>& keys, const std::string& file) {
  ConfigSources sources;
  sources.flags = keys;
  sources.file = file;
  auto config = Config::Load(AutoRecoveryConfigTable().schema(), sources);
  if (!config.ok()) return config.status();
  AutoRecoveryOptions o;
  if (absl::Status s = AutoRecoveryConfigTable().Apply(*config, &o); !s.ok()) {
    return s;
  }
  if (o.metadata_uri.empty()) {
    return absl::InvalidArgumentError("metadataServiceUri is required");
  }
  if (!o.ledger_password_file.empty()) {
    auto p = ReadPasswordFile(o.ledger_password_file);
    if (!p.ok()) return p.status();
    o.ledger_passwords = *std::move(p);
  }
  return o;
}

std::string AutoRecoveryConfigHelp() {
  return AutoRecoveryConfigTable().schema().Help();
}

absl::StatusOr<std::vector<std::string>> ReadPasswordFile(
    const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, " is readable by others: it holds ledger passwords (chmod 600)"));
  }
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace bk::autorecovery
