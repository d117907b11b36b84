// DaemonOptions: everything the bookie daemon needs. Its configuration keys
// (bookie_config.h) are bound to these fields; a key's default is the
// field's default here or in the component's own options struct.

#ifndef BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_
#define BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bookie/disk_checker.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/http/http_router.h"
#include "bookie/http/http_server.h"
#include "bookie/service/bookie_service.h"
#include "bookie/tls.h"
#include "common/config.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"
#include "monitor/monitor_options.h"

namespace bk::bookie {

struct DaemonOptions {
  // The components' defaults, except where a daemon differs from a library
  // user (daemon_options.cc says which and why).
  DaemonOptions();

  std::string bookie_id;  // bookieId; empty: advertisedAddress:bookiePort
  std::string advertised_address = "127.0.0.1";  // advertisedAddress
  std::string listen_address = "0.0.0.0";        // listeningInterface
  int grpc_port = 3181;                          // bookiePort
  bool http_enabled = true;                      // httpServerEnabled
  int http_port = 8000;                          // httpServerPort
  // httpServerAdminEnabled / httpServerAdminTokenFile: the admin API's
  // mutating endpoints (PUT, POST, DELETE), with the bearer token of a file
  // of mode 0600 (bookie/http/http_auth.h).
  bool http_admin_enabled = false;
  std::string http_admin_token_file;
  // httpServerMaxBodyBytes: the longest request body the HTTP server reads
  // (the admin API's PUT and POST bodies are a few hundred bytes); a
  // longer one is answered 413 unread.
  uint64_t http_max_body_bytes = HttpServerOptions().max_body_bytes;
  // Routes served on the HTTP port beside the bookie's own, from the
  // program that composes the daemon (tools/bookie_main: autorecovery's
  // admin endpoints). Not a key. A path the bookie serves is an error.
  std::vector<HttpRoute> extra_http_routes;
  // networkLocation: /region/rack.
  std::string network_location = "/default-region/default-rack";
  // metadataServiceUri: zk://host:port[,host:port]/root or mem://.
  std::string metadata_uri = "zk://127.0.0.1:2181/ledgers";
  absl::Duration metadata_session_timeout = absl::Seconds(10);  // zkTimeout
  // zkEnableSecurity / zkDigestFile: ZooKeeper digest authentication and
  // creator-only ACLs (metadata::OpenOptions, deploy/README.md).
  bool zk_enable_security = false;
  std::string zk_digest_file;
  TlsOptions tls;
  StoreOptions store;
  ServiceOptions service;
  // writeCachePreTouch (ours, true): reserve the write cache's worth of
  // memory for received entries at start and touch every page of it, so a
  // bookie's first load does not fault it in (EntryBlockPool).
  bool write_cache_pre_touch = true;
  // serverNumIOThreads: accepted for BookKeeper configurations and
  // ignored. The Bookie service is a gRPC callback service: its reactors
  // run on gRPC's own threads, which gRPC 1.51 does not let a program size
  // (ServerBuilder's NUM_CQS and ResourceQuota::SetMaxThreads govern sync
  // services only). A non-zero value is warned about at start
  // (IgnoredKeyWarnings).
  int server_io_threads = 0;
  monitor::MonitorOptions monitor;
  DiskCheckerOptions disk;
  // readOnlyModeEnabled: a full disk turns the bookie read-only; false:
  // the bookie stops instead (daemon_disk.cc).
  bool read_only_mode_enabled = true;
  bool force_read_only = false;                         // forceReadOnlyBookie
  log::Level log_level = log::Level::kInfo;             // logLevel
  absl::Duration shutdown_timeout = absl::Seconds(30);  // shutdownTimeoutMs
};

// Applies the bookie's key table (bookie_config.h) to DaemonOptions(), then
// the rules that span keys: the default bookie id, /region/rack, non-empty
// directories, each component's Validate. Errors name the key and what is
// wrong with it.
// How the daemon and its format command open the metadata store.
metadata::OpenOptions MetadataOpenOptions(const DaemonOptions& o);

absl::StatusOr<DaemonOptions> DaemonOptionsFromConfig(const Config& config);

// One line for each key set to a value this bookie accepts (for BookKeeper
// configurations) but does not act on; the daemon logs each as a warning at
// start. Empty when every such key has its default.
std::vector<std::string> IgnoredKeyWarnings(const DaemonOptions& o);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_
