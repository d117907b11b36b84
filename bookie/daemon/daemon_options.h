// DaemonOptions: everything the bookie daemon needs, converted and checked
// from its configuration (bookie_config.h) in one place.

#ifndef BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_
#define BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bookie/disk_checker.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/service/bookie_service.h"
#include "bookie/tls.h"
#include "common/config.h"
#include "common/logging.h"
#include "monitor/monitor_options.h"

namespace bk::bookie {

struct DaemonOptions {
  std::string bookie_id;           // bookieId (defaulted: address:port)
  std::string advertised_address;  // advertisedAddress
  std::string listen_address;      // listeningInterface
  int grpc_port = 3181;            // bookiePort
  bool http_enabled = true;        // httpServerEnabled
  int http_port = 8000;            // httpServerPort
  std::string network_location;    // networkLocation, /region/rack
  std::string metadata_uri;        // metadataServiceUri
  absl::Duration metadata_session_timeout = absl::Seconds(10);  // zkTimeout
  TlsOptions tls;
  StoreOptions store;
  ServiceOptions service;
  monitor::MonitorOptions monitor;
  DiskCheckerOptions disk;
  bool read_only_mode_enabled = true;  // readOnlyModeEnabled
  bool force_read_only = false;        // forceReadOnlyBookie
  log::Level log_level = log::Level::kInfo;
  absl::Duration shutdown_timeout = absl::Seconds(30);
  absl::Duration testing_sync_delay = absl::ZeroDuration();
  // testingFailSyncNth / testingFailSyncPath: the nth sync of a matching
  // file fails with EIO (0: off). Testing aid for the fault suite.
  int64_t testing_fail_sync_nth = 0;
  std::string testing_fail_sync_path = ".jnl";
};

// Errors name the key and what is wrong with it.
absl::StatusOr<DaemonOptions> DaemonOptionsFromConfig(const Config& config);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_DAEMON_OPTIONS_H_
