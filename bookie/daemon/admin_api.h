// The bookie's admin HTTP API: BookKeeper's paths and, where BookKeeper has
// them, its JSON shapes (bookie/README.md lists every endpoint and where
// the shapes differ). Served on httpServerPort by StartHttp.
//
//   admin_state.cc    GET /heartbeat, /api/v1/bookie/is_ready,
//                     /api/v1/bookie/state; PUT /api/v1/bookie/state/readonly
//   admin_info.cc     GET /api/v1/bookie/info, /api/v1/bookie/list_bookies,
//                     /api/v1/config/server_config
//   admin_storage.cc  GET /api/v1/bookie/last_log_mark,
//                     /api/v1/bookie/list_disk_file,
//                     /api/v1/bookie/gc_details; GET and PUT /api/v1/bookie/gc
//   admin_ledgers.cc  GET /api/v1/ledger/list, /api/v1/ledger/metadata;
//                     DELETE /api/v1/ledger/delete
//
// Handlers run on HTTP worker threads and read DaemonParts as its members'
// comments allow; they are installed before registration and answer 503
// while a part they need is not there. Mutations (PUT, DELETE) pass AdminAuth
// in the router first (http_router.h): no handler here checks a token.

#ifndef BK_BOOKIE_DAEMON_ADMIN_API_H_
#define BK_BOOKIE_DAEMON_ADMIN_API_H_

#include <vector>

#include "bookie/daemon/daemon_wiring.h"
#include "bookie/http/http_router.h"

namespace bk::bookie {

// `options` and `p` must outlive the routes (the daemon's own do).
std::vector<HttpRoute> AdminStateRoutes(const DaemonOptions& options,
                                        DaemonParts& p);
std::vector<HttpRoute> AdminInfoRoutes(const DaemonOptions& options,
                                       DaemonParts& p);
std::vector<HttpRoute> AdminStorageRoutes(const DaemonOptions& options,
                                          DaemonParts& p);
std::vector<HttpRoute> AdminLedgerRoutes(const DaemonOptions& options,
                                         DaemonParts& p);

// The configuration as the bookie runs it, key -> value, secrets (keys
// marked secret, and any key naming a password or secret) shown as "****"
// when set.
nlohmann::json EffectiveConfig(const DaemonOptions& options);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_ADMIN_API_H_
