// The admin API's liveness and read-only state (admin_api.h).

#include "absl/strings/str_cat.h"
#include "bookie/daemon/admin_api.h"

namespace bk::bookie {
namespace {

using nlohmann::json;

// BookKeeper's state fields, and ours: why it is read-only, whether the
// admin API forced it, registered, healthy.
json State(const DaemonOptions& options, DaemonParts& p) {
  const StoreStats st = p.store->Stats();
  return json{{"running", p.ready.load() && !p.shutting_down.load()},
              {"readOnly", !st.writable},
              {"shuttingDown", p.shutting_down.load()},
              {"availableForHighPriorityWrites", st.healthy},
              {"readOnlyReason", st.unwritable_reason},
              {"forceReadOnly", options.force_read_only},
              {"adminReadOnly", p.admin_read_only.load()},
              {"registered", p.registered.load()},
              {"healthy", st.healthy}};
}

HttpResponse PutReadOnly(const DaemonOptions& options, DaemonParts& p,
                         const HttpRequest& req) {
  auto body = ParseJsonObjectBody(req);
  if (!body.ok()) return JsonError(400, std::string(body.status().message()));
  auto it = body->find("readOnly");
  if (it == body->end() || !it->is_boolean()) {
    return JsonError(400,
                     "the body must be {\"readOnly\": true} or "
                     "{\"readOnly\": false}");
  }
  const bool read_only = it->get<bool>();
  if (!read_only && options.force_read_only) {
    return JsonError(409,
                     "forceReadOnlyBookie=true is configured: the bookie "
                     "stays read-only until it restarts without it");
  }
  p.admin_read_only = read_only;
  p.log->warn("admin API: read-only {}", read_only ? "forced" : "cleared");
  if (absl::Status s = UpdateWritableState(options, p); !s.ok()) {
    return JsonError(500, std::string(s.message()));
  }
  json state = State(options, p);
  if (!read_only && state["readOnly"].get<bool>()) {
    return JsonError(409,
                     absl::StrCat("still read-only: ",
                                  state["readOnlyReason"].get<std::string>()));
  }
  return JsonResponse(state);
}

}  // namespace

std::vector<HttpRoute> AdminStateRoutes(const DaemonOptions& options,
                                        DaemonParts& p) {
  const DaemonOptions* o = &options;
  DaemonParts* q = &p;
  return {
      {"GET", "/heartbeat",
       [](const HttpRequest&) {
         return HttpResponse{200, "text/plain; charset=utf-8", "OK\n", {}};
       }},
      // What BookKeeper's charts probe; the same rule as /ready: serving,
      // registered, and the journal checkpoint not failed.
      {"GET", "/api/v1/bookie/is_ready",
       [q](const HttpRequest&) {
         std::string why;
         if (!q->ready || q->shutting_down) {
           why = "Bookie is not fully started yet";
         } else if (!q->registered) {
           why = "Bookie is not registered";
         } else if (std::string e = q->store->Stats().checkpoint_error;
                    !e.empty()) {
           why = "journal checkpoint failed (restart to recover): " + e;
         }
         return HttpResponse{why.empty() ? 200 : 503,
                             "text/plain; charset=utf-8",
                             why.empty() ? "OK\n" : why + "\n",
                             {}};
       }},
      {"GET", "/api/v1/bookie/state",
       [o, q](const HttpRequest&) { return JsonResponse(State(*o, *q)); }},
      {"PUT", "/api/v1/bookie/state/readonly",
       [o, q](const HttpRequest& req) { return PutReadOnly(*o, *q, req); }},
      // BookKeeper also answers GET here with the state.
      {"GET", "/api/v1/bookie/state/readonly",
       [q](const HttpRequest&) {
         return JsonResponse(json{{"readOnly", !q->store->Stats().writable}});
       }},
  };
}

}  // namespace bk::bookie
