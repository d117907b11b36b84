// AutoRecoveryOptions: what an autorecovery process (auditor + workers) is
// configured with. Keys use BookKeeper's names where BookKeeper has the key
// (autorecovery_config.h binds each to its field; defaults are the fields').

#ifndef BK_AUTORECOVERY_AUTORECOVERY_OPTIONS_H_
#define BK_AUTORECOVERY_AUTORECOVERY_OPTIONS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace bk::autorecovery {

struct AutoRecoveryOptions {
  // metadataServiceUri: zk://host:port[,host:port]/root or mem://name.
  std::string metadata_uri;
  // zkTimeout: the session timeout; an auditor that dies is replaced
  // within about this long.
  absl::Duration zk_timeout = absl::Seconds(10);
  // zkEnableSecurity, zkDigestFile: as the bookie's and the client's keys
  // (authenticate with the digest credentials; znodes creator-only).
  bool zk_enable_security = false;
  std::string zk_digest_file;
  // autoRecoveryId: this process's name in the election and in locks;
  // empty: <hostname>:<pid>.
  std::string id;
  // lostBookieRecoveryDelay: how long a bookie may be missing before its
  // ledgers are marked (BookKeeper's default: 0).
  absl::Duration lost_bookie_recovery_delay = absl::ZeroDuration();
  // auditorPeriodicBookieCheckInterval: full audit at least this often.
  absl::Duration auditor_periodic_bookie_check_interval = absl::Hours(24);
  // auditorPeriodicCheckInterval: how often the auditor checks every
  // ledger's fragments entry by entry on the bookies that should hold them
  // (replica_check.h); the first check one interval after it became the
  // auditor. Zero: never (BookKeeper's default: a week).
  absl::Duration auditor_periodic_check_interval = absl::Hours(24 * 7);
  // openLedgerRereplicationGracePeriod: an open ledger's last segment is
  // left to its writer this long after the ledger was marked.
  absl::Duration open_ledger_rereplication_grace_period = absl::Seconds(30);
  // rereplicationEntryBatchSize: entries per chunk of a copy (a chunk is
  // streamed from one replica and written as it arrives; a few chunks of a
  // fragment are in flight at once).
  int rereplication_entry_batch_size = 10;
  // autoRecoveryWorkers: replication workers in this process, each
  // repairing its own ledger at the same time.
  int workers = 2;
  // replicationRateByBytes: bytes per second re-replicated by this
  // process; <= 0: unthrottled.
  int64_t replication_rate_by_bytes = -1;
  // rwRereplicateBackoffMs: a ledger that failed is retried after this.
  absl::Duration rw_rereplicate_backoff = absl::Seconds(5);
  // autoRecoveryPollIntervalMs: how often the auditor looks at the bookie
  // registrations and an idle worker looks for marked ledgers.
  absl::Duration poll_interval = absl::Seconds(1);
  // ledgerPasswordFile: the cluster's ledger passwords, one per line (mode
  // 0600); the worker needs a ledger's password to write its entries.
  std::string ledger_password_file;

  // prometheusStatsHttpPort: where autorecovery's /metrics are served
  // (`bkctl autorecovery`, or a bookie running it in-process); 0: not
  // served.
  int prometheus_stats_http_port = 0;

  // Not keys: set by a program that has them otherwise.
  std::vector<std::string> ledger_passwords;
  // Where the metrics go (autorecovery_probe.h); null: a registry of the
  // service's own (AutoRecovery::metrics_registry()).
  std::shared_ptr<prometheus::Registry> registry;
};

// Options from key=value pairs (flags); unknown keys and bad values are
// kInvalidArgument naming the key. `file` (may be empty) is a key=value
// config file read first.
absl::StatusOr<AutoRecoveryOptions> AutoRecoveryOptionsFromKeys(
    const std::map<std::string, std::string>& keys, const std::string& file);
// Every key with its default, unit and meaning.
std::string AutoRecoveryConfigHelp();

// Reads a password file: one password per line, no trailing newline kept;
// kPermissionDenied when others may read it.
absl::StatusOr<std::vector<std::string>> ReadPasswordFile(
    const std::string& path);

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUTORECOVERY_OPTIONS_H_
