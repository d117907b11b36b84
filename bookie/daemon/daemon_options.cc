#include "bookie/daemon/daemon_options.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bookie/daemon/bookie_config.h"

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

DaemonOptions::DaemonOptions() {
  // A library user names its directories; a daemon started with no
  // configuration at all (a first try, a test) gets scratch ones.
  store.journal.dirs = {"/tmp/bk-txn"};
  store.storage.ledger_dirs = {"/tmp/bk-data"};
  // dbStorage_readAheadCacheMaxSizeMb: the daemon has always shipped half
  // of LedgerStorageOptions' 64 MiB.
  store.storage.read_cache_bytes = uint64_t{32} << 20;
}

absl::StatusOr<DaemonOptions> DaemonOptionsFromConfig(const Config& c) {
  DaemonOptions o;
  if (absl::Status s = BookieConfigTable().Apply(c, &o); !s.ok()) return s;

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
  if (absl::Status s = CheckLocation(o.network_location); !s.ok()) return s;
  // A size key's table range prints as a plain number; the bounds are
  // checked here instead, in sizes.
  if (o.http_max_body_bytes < (1u << 10) ||
      o.http_max_body_bytes > (64u << 20)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "httpServerMaxBodyBytes ", o.http_max_body_bytes,
        " is outside 1 KiB .. 64 MiB (the admin API's bodies are a few "
        "hundred bytes)"));
  }
  if (o.zk_enable_security && o.zk_digest_file.empty()) {
    return absl::InvalidArgumentError(
        "zkEnableSecurity=true needs zkDigestFile (a file holding "
        "user:password)");
  }

  if (o.store.journal.dirs.empty()) {
    return absl::InvalidArgumentError("journalDirectories is empty");
  }
  if (absl::Status s = o.store.journal.Validate(); !s.ok()) return s;

  const LedgerStorageOptions& st = o.store.storage;
  if (st.ledger_dirs.empty()) {
    return absl::InvalidArgumentError("ledgerDirectories is empty");
  }
  if (st.minor_compaction_threshold > st.major_compaction_threshold) {
    return absl::InvalidArgumentError(
        "minorCompactionThreshold is above majorCompactionThreshold");
  }
  if (absl::Status s = o.disk.Validate(); !s.ok()) return s;
  if (o.http_admin_enabled && o.http_admin_token_file.empty()) {
    return absl::InvalidArgumentError(
        "httpServerAdminEnabled=true needs httpServerAdminTokenFile: a file "
        "holding the admin bearer token, mode 0600");
  }

  // The load monitor watches the devices of the same directories.
  o.monitor.journal_dirs = o.store.journal.dirs;
  o.monitor.ledger_dirs = st.ledger_dirs;
  return o;
}

metadata::OpenOptions MetadataOpenOptions(const DaemonOptions& o) {
  metadata::OpenOptions mo;
  mo.session_timeout = o.metadata_session_timeout;
  mo.zk_enable_security = o.zk_enable_security;
  mo.zk_digest_file = o.zk_digest_file;
  return mo;
}

std::vector<std::string> IgnoredKeyWarnings(const DaemonOptions& o) {
  std::vector<std::string> out;
  if (o.server_io_threads != DaemonOptions().server_io_threads) {
    out.push_back(absl::StrCat(
        "serverNumIOThreads=", o.server_io_threads,
        " is accepted for BookKeeper configurations and ignored: the gRPC "
        "callback server runs on gRPC's own threads, which this gRPC does "
        "not let the bookie size"));
  }
  return out;
}

}  // namespace bk::bookie
