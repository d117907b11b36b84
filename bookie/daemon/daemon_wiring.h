// The wiring units of BookieDaemon::Start (bookie_daemon.h), one per part
// of a running bookie, in the order Start runs them:
//
//   http token   LoadHttpAdminToken
//   metadata     OpenMetadata, WaitForOldRegistration, LockDirectories,
//                CheckCookies
//   storage      OpenStorage (journal replay), InstallGcFilter
//   monitor      StartMonitor (the BP-65 load figures)
//   disk         StartDiskChecker; CheckDisks while running
//   service      StartService (the Bookie gRPC service and its server)
//   http         StartHttp (/metrics, /health, /ready, the admin API)
//   registration Register, WatchSession
//
// Each unit builds its part into DaemonParts from DaemonOptions and the
// parts before it, and returns the first error; BookieDaemon's shutdown
// takes the parts down in reverse. Units run on the daemon's owning thread;
// the callbacks they install (info provider, HTTP handlers, session
// listener) run on server threads and read DaemonParts through the
// synchronisation stated on each member.

#ifndef BK_BOOKIE_DAEMON_DAEMON_WIRING_H_
#define BK_BOOKIE_DAEMON_DAEMON_WIRING_H_

#include <prometheus/registry.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "bookie/daemon/bookie_metrics.h"
#include "bookie/daemon/daemon_options.h"
#include "bookie/daemon/metadata_ledger_filter.h"
#include "bookie/daemon/registration_keeper.h"
#include "bookie/dir_lock.h"
#include "bookie/http/http_server.h"
#include "bookie/service/grpc_server.h"
#include "common/env.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"
#include "monitor/base_metric_monitor.h"

namespace bk::bookie {

class StoreCounters;

// What one running bookie owns. Members are set once by their unit, on the
// owning thread, before anything that reads them from another thread is
// started, and reset only by shutdown after those are stopped.
struct DaemonParts {
  DaemonParts();
  ~DaemonParts();

  log::Logger log;
  Env* env = nullptr;  // not owned; outlives the daemon
  int64_t start_time_ms = 0;
  // The journal and ledger directories' locks (dir_lock.h), held from
  // before the cookie check until the parts are destroyed, after the store
  // has closed (declared first: destroyed last).
  std::vector<DirLock> dir_locks;

  // metadata
  std::unique_ptr<metadata::MetadataStore> metadata;
  std::string instance_id;
  // storage. gc_filter is null in standalone mode (a private mem:// store);
  // the store's GC thread uses it, so it outlives the store.
  std::shared_ptr<prometheus::Registry> registry;
  std::unique_ptr<JournalProbe> journal_probe;
  std::unique_ptr<ServiceProbe> service_probe;
  std::unique_ptr<MetadataLedgerFilter> gc_filter;
  std::unique_ptr<BookieStoreImpl> store;
  // monitor
  std::unique_ptr<StoreCounters> counters;
  std::unique_ptr<monitor::BaseMetricMonitor> monitor;
  // disk
  std::unique_ptr<DiskChecker> disk;
  // service
  std::unique_ptr<BookieServiceImpl> service;
  std::unique_ptr<GrpcServer> grpc;
  // http
  std::shared_ptr<StatsCollector> collector;
  std::string http_admin_token;  // empty unless httpServerAdminEnabled
  std::unique_ptr<HttpServer> http;
  // registration
  std::unique_ptr<metadata::Subscription> session_listener;
  std::unique_ptr<RegistrationKeeper> registration;  // registers again

  // Own synchronisation.
  std::atomic<bool> registered{false};
  std::atomic<bool> ready{false};
  std::atomic<bool> shutting_down{false};  // set when the drain begins

  // Set through the admin API (PUT /api/v1/bookie/state/readonly): the
  // bookie stays read-only until it is cleared (or the process restarts).
  std::atomic<bool> admin_read_only{false};

  // Held while the writable state is applied and registered
  // (UpdateWritableState), so registrations follow the states in order.
  absl::Mutex state_mu ABSL_ACQUIRED_BEFORE(mu);
  absl::Mutex mu;
  DiskCheckResult last_disk ABSL_GUARDED_BY(mu);
  bool registered_read_only ABSL_GUARDED_BY(mu) = false;

  DiskCheckResult LastDisk() ABSL_LOCKS_EXCLUDED(mu);
  int grpc_port() const { return grpc ? grpc->port() : 0; }
  int http_port() const { return http ? http->port() : 0; }
};

// --- metadata (daemon_metadata.cc)

// Opens the metadata store and reads the cluster's instance id.
absl::Status OpenMetadata(const DaemonOptions& options, DaemonParts& p);
// A registration under our id before we registered is a live bookie with
// the same id or a dead one's whose session has not expired: waits up to
// two session timeouts for it to go, then refuses. Touches no directory.
absl::Status WaitForOldRegistration(const DaemonOptions& options,
                                    DaemonParts& p);
// Takes every journal and ledger directory's lock (creating missing
// directories), or refuses start when another process holds one: two
// bookies on one directory, or a `bookie format` running.
absl::Status LockDirectories(const DaemonOptions& options, DaemonParts& p);
// Every directory and the metadata store agree on the cookie, or start is
// refused with what differs and how to repair; a new bookie's cookies are
// written.
absl::Status CheckCookies(const DaemonOptions& options, DaemonParts& p);

// --- storage (daemon_storage.cc)

// The metrics registry and probes, then the store: journal replay, flush
// and GC threads.
absl::Status OpenStorage(const DaemonOptions& options, DaemonParts& p);
// GC deletes the ledgers whose metadata is gone (none with a private mem://
// store, where every ledger would look deleted).
void InstallGcFilter(const DaemonOptions& options, DaemonParts& p);
// The load monitor, fed the store's own counters.
absl::Status StartMonitor(const DaemonOptions& options, DaemonParts& p);

// --- disk (daemon_disk.cc)

// The disk checker over every journal and ledger directory, its first
// check applied before anything serves.
// Both fail (the bookie then stops) on a full disk when
// readOnlyModeEnabled=false, as BookKeeper shuts down instead of turning
// read-only.
absl::Status StartDiskChecker(const DaemonOptions& options, DaemonParts& p);
// One check while running: read-only above diskUsageThreshold, writable
// again below diskUsageLwmThreshold, the registration kept in step.
absl::Status CheckDisks(const DaemonOptions& options, DaemonParts& p);
// Applies the read-only state the last disk check, forceReadOnlyBookie and
// the admin API (p.admin_read_only) call for, and re-registers when the
// registration's flag no longer matches. Serialised on p.state_mu (the
// disk thread and admin HTTP requests both call it). An error only with
// readOnlyModeEnabled=false and a full disk: the bookie must stop.
absl::Status UpdateWritableState(const DaemonOptions& options, DaemonParts& p)
    ABSL_LOCKS_EXCLUDED(p.state_mu);

// --- service and http (daemon_servers.cc)

// The Bookie service and its gRPC server (TLS from the options).
absl::Status StartService(const DaemonOptions& options, DaemonParts& p);
// The admin API's bearer token (httpServerAdminTokenFile) into
// p.http_admin_token, when httpServerAdminEnabled; refuses the start when
// the file is missing, open to group or others, or empty. Run first, before
// anything touches a directory or the metadata store.
absl::Status LoadHttpAdminToken(const DaemonOptions& options, DaemonParts& p);
// /metrics, /health, /ready, the admin API (admin_api.h) and
// options.extra_http_routes, when httpServerEnabled.
absl::Status StartHttp(const DaemonOptions& options, DaemonParts& p);

// --- registration (daemon_metadata.cc)

// Registers (ephemeral) under the bookie id, writable or read-only as the
// store is; a live bookie with the id refuses start.
absl::Status Register(const DaemonOptions& options, DaemonParts& p);
// Tracks the metadata session: registration lost on expiry; once the
// session is re-established the bookie registers again (the store's own
// re-creation may have failed, e.g. another session holds the id), retried
// with backoff until it succeeds, each failure logged and counted.
void WatchSession(const DaemonOptions& options, DaemonParts& p);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_DAEMON_WIRING_H_
