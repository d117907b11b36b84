// The autorecovery endpoints of the admin HTTP API, BookKeeper's paths:
//
//   GET    /api/v1/autorecovery/list_under_replicated_ledger
//            ?missingreplica=B&excludingmissingreplica=B&printmissingreplica=
//   GET    /api/v1/autorecovery/who_is_auditor
//   GET    /api/v1/autorecovery/status   {"enabled": bool}
//   PUT    /api/v1/autorecovery/status?enabled=true|false   resumes or
//          pauses re-replication cluster-wide (bkctl replication)
//   GET    /api/v1/autorecovery/lost_bookie_recovery_delay
//   PUT    /api/v1/autorecovery/lost_bookie_recovery_delay
//          {"delay_seconds": N}: set cluster-wide (recovery_delay.h)
//   DELETE /api/v1/autorecovery/lost_bookie_recovery_delay   cleared
//   PUT    /api/v1/autorecovery/trigger_audit
//   PUT    /api/v1/autorecovery/bookie        {"bookie_src": ["id", ...]}
//          PUT /api/v1/autorecovery/decommission {"bookie_src": "id"} alike:
//          marks every ledger naming the bookies under-replicated, so the
//          replication workers move them off (the start of a decommission)
//   GET    /api/v1/autorecovery/bookie?bookie_src=id   its progress
//   DELETE /api/v1/autorecovery/bookie?bookie_src=id   the end: deletes
//          its cookie, refused (409) while it is registered or a ledger
//          still names it
//   GET    /api/v1/bookie/cluster_info   bookie counts by state
//          (unavailable: a cookie, no registration), whether a ledger is
//          under-replicated, whether re-replication is enabled (bkctl
//          replication), the auditor; BookKeeper's field names
//
// Autorecovery never includes bookie code and the bookie never includes
// autorecovery (README.md's layout table), so the routes are plain
// (AdminRoute: method, path, a function of strings); the program that
// serves them adapts them to its HTTP server (tools/bookie_main), whose
// router makes every PUT and DELETE pass the admin token check first.
//
// Handlers are thread-safe and blocking (metadata store calls; a decommission
// lists every ledger's metadata once).

#ifndef BK_AUTORECOVERY_ADMIN_ROUTES_H_
#define BK_AUTORECOVERY_ADMIN_ROUTES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

struct AdminCall {
  std::string query;  // after '?', undecoded
  std::string body;
};

struct AdminReply {
  int status = 200;
  std::string json;  // the body, a JSON document
};

struct AdminRoute {
  std::string method;  // GET, PUT or DELETE
  std::string path;
  std::function<AdminReply(const AdminCall&)> handler;
};

// The metadata store the handlers use, opened on first use by the caller
// (an error is answered 503 and asked again next time). The store it
// returns must outlive the routes.
using StoreFn = std::function<absl::StatusOr<metadata::MetadataStore*>()>;

std::vector<AdminRoute> AutoRecoveryAdminRoutes(StoreFn store);

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_ADMIN_ROUTES_H_
