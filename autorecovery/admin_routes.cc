#include "autorecovery/admin_routes.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/autorecovery.h"
#include "autorecovery/ledgers_on_bookie.h"
#include "autorecovery/operator_actions.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"
#include "common/query_string.h"

namespace bk::autorecovery {
namespace {

using nlohmann::json;

AdminReply Reply(const json& value, int status = 200) {
  return AdminReply{status, value.dump(2) + "\n"};
}

AdminReply Error(int status, const std::string& message) {
  return Reply(json{{"error", message}}, status);
}

AdminReply Unavailable(const absl::Status& s) {
  return Error(503, std::string(s.message()));
}

// {"missingreplica": id}-style filters of BookKeeper, and
// printmissingreplica: a map ledger -> missing bookies instead of a list.
AdminReply ListUnderReplicated(metadata::MetadataStore* store,
                               const AdminCall& call) {
  auto params = ParseQuery(call.query);
  if (!params.ok()) return Error(400, std::string(params.status().message()));
  std::string include, exclude;
  bool print = false;
  for (const auto& [k, v] : *params) {
    if (k == "missingreplica") {
      include = v;
    } else if (k == "excludingmissingreplica") {
      exclude = v;
    } else if (k == "printmissingreplica") {
      print = v.empty() || v == "true";
    } else {
      return Error(400, absl::StrCat("unknown parameter '", k,
                                     "' (missingreplica, "
                                     "excludingmissingreplica, "
                                     "printmissingreplica)"));
    }
  }
  UnderreplicationManager marks(store);
  auto ids = marks.List();
  if (!ids.ok()) return Unavailable(ids.status());
  json list = json::array();
  json map = json::object();
  for (int64_t id : *ids) {
    auto m = marks.Get(id);
    if (absl::IsNotFound(m.status())) continue;  // repaired meanwhile
    if (!m.ok()) return Unavailable(m.status());
    auto has = [&](const std::string& b) {
      return std::find(m->missing.begin(), m->missing.end(), b) !=
             m->missing.end();
    };
    if (!include.empty() && !has(include)) continue;
    if (!exclude.empty() && has(exclude)) continue;
    list.push_back(id);
    map[absl::StrCat(id)] = m->missing;
  }
  return Reply(print ? map : list);
}

AdminReply WhoIsAuditor(metadata::MetadataStore* store) {
  auto who = CurrentAuditor(store);
  if (!who.ok()) return Unavailable(who.status());
  if (who->empty()) {
    return Error(404,
                 "no auditor is elected: is autorecovery running "
                 "(autoRecoveryDaemonEnabled=true or `bkctl autorecovery`)?");
  }
  return Reply(json{{"Auditor", *who}});
}

// BookKeeper's GET /api/v1/bookie/cluster_info, its field names: a bookie
// is unavailable when it has a cookie and no registration.
AdminReply ClusterInfo(metadata::MetadataStore* store) {
  auto bookies = store->ListBookies();
  if (!bookies.ok()) return Unavailable(bookies.status());
  auto cookies = store->ListCookies();
  if (!cookies.ok()) return Unavailable(cookies.status());
  std::set<std::string> up;
  for (const auto& b : bookies->writable) up.insert(b.bookie_id());
  for (const auto& b : bookies->readonly) up.insert(b.bookie_id());
  size_t unavailable = 0;
  for (const std::string& id : *cookies) unavailable += up.count(id) == 0;
  UnderreplicationManager marks(store);
  auto marked = marks.List();
  if (!marked.ok()) return Unavailable(marked.status());
  auto enabled = marks.ReplicationEnabled();
  if (!enabled.ok()) return Unavailable(enabled.status());
  auto who = CurrentAuditor(store);
  if (!who.ok()) return Unavailable(who.status());
  return Reply(json{{"auditorElected", !who->empty()},
                    {"auditorId", *who},
                    {"clusterUnderReplicated", !marked->empty()},
                    {"ledgerReplicationEnabled", *enabled},
                    {"totalBookiesCount", up.size() + unavailable},
                    {"writableBookiesCount", bookies->writable.size()},
                    {"readonlyBookiesCount", bookies->readonly.size()},
                    {"unavailableBookiesCount", unavailable}});
}

// BookKeeper's /api/v1/autorecovery/status: {"enabled": bool}, and the
// pause's start when paused (ours). PUT ?enabled=true|false resumes or
// pauses re-replication cluster-wide, as `bkctl replication enable|disable`
// does; resuming requests an audit, so that bookies lost while paused are
// found at once.
AdminReply ReplicationStatus(metadata::MetadataStore* store) {
  UnderreplicationManager marks(store);
  auto since = marks.ReplicationDisabledSince();
  if (!since.ok()) return Unavailable(since.status());
  json reply{{"enabled", !since->has_value()}};
  if (since->has_value()) {
    reply["disabledSince"] = absl::FormatTime(**since, absl::UTCTimeZone());
  }
  return Reply(reply);
}

AdminReply SetReplicationStatus(metadata::MetadataStore* store,
                                const AdminCall& call) {
  auto params = ParseQuery(call.query);
  if (!params.ok()) return Error(400, std::string(params.status().message()));
  std::optional<bool> enable;
  for (const auto& [k, v] : *params) {
    if (k != "enabled") {
      return Error(400, absl::StrCat("unknown parameter '", k, "' (enabled)"));
    }
    if (v != "true" && v != "false") {
      return Error(
          400, absl::StrCat("enabled must be true or false, not '", v, "'"));
    }
    enable = v == "true";
  }
  if (!enable.has_value()) {
    return Error(400, "missing parameter: ?enabled=true or ?enabled=false");
  }
  if (absl::Status s =
          SetReplicationEnabledByOperator(store, *enable, absl::Now());
      !s.ok()) {
    return Unavailable(s);
  }
  return ReplicationStatus(store);
}

// BookKeeper's /api/v1/autorecovery/lost_bookie_recovery_delay, in JSON:
// {"set": false} while every auditor uses its configured delay, else
// {"set": true, "delay_seconds": N}. PUT {"delay_seconds": N} sets it
// cluster-wide and requests an audit (applied at once); DELETE (ours)
// clears it.
AdminReply RecoveryDelay(metadata::MetadataStore* store) {
  auto delay = ReadLostBookieRecoveryDelay(store);
  if (!delay.ok()) return Unavailable(delay.status());
  json reply{{"set", delay->has_value()}};
  if (delay->has_value()) {
    reply["delay_seconds"] = absl::ToInt64Seconds(**delay);
  }
  return Reply(reply);
}

AdminReply SetRecoveryDelay(metadata::MetadataStore* store,
                            const AdminCall& call) {
  json v = json::parse(call.body, nullptr, false);
  const bool shaped = !v.is_discarded() && v.is_object() && v.size() == 1 &&
                      v.contains("delay_seconds") &&
                      v["delay_seconds"].is_number_integer();
  if (!shaped) {
    return Error(400, "the body must be {\"delay_seconds\": <whole seconds>}");
  }
  absl::Status s =
      ChangeLostBookieRecoveryDelay(store, v["delay_seconds"].get<int64_t>());
  if (absl::IsInvalidArgument(s)) return Error(400, std::string(s.message()));
  if (!s.ok()) return Unavailable(s);
  return RecoveryDelay(store);
}

AdminReply ClearRecoveryDelay(metadata::MetadataStore* store) {
  if (absl::Status s = ChangeLostBookieRecoveryDelay(store, std::nullopt);
      !s.ok()) {
    return Unavailable(s);
  }
  return RecoveryDelay(store);
}

AdminReply TriggerAudit(metadata::MetadataStore* store) {
  if (absl::Status s = RequestAudit(store); !s.ok()) return Unavailable(s);
  auto who = CurrentAuditor(store);
  return Reply(json{
      {"requested", true},
      {"auditor", who.ok() && !who->empty() ? json(*who) : json(nullptr)}});
}

// The bookies of {"bookie_src": "id"} or {"bookie_src": ["id", ...]}.
absl::StatusOr<std::vector<std::string>> BookiesOfBody(
    const std::string& body) {
  json v = json::parse(body, nullptr, false);
  if (v.is_discarded() || !v.is_object()) {
    return absl::InvalidArgumentError(
        "the body must be a JSON object {\"bookie_src\": [\"<bookie id>\"]}");
  }
  for (const auto& [k, unused] : v.items()) {
    if (k != "bookie_src") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown field '", k, "' (bookie_src)"));
    }
  }
  auto it = v.find("bookie_src");
  std::vector<std::string> out;
  if (it != v.end() && it->is_string()) out.push_back(it->get<std::string>());
  if (it != v.end() && it->is_array()) {
    for (const auto& b : *it) {
      if (!b.is_string()) {
        return absl::InvalidArgumentError("bookie_src lists bookie ids");
      }
      out.push_back(b.get<std::string>());
    }
  }
  if (out.empty() ||
      std::any_of(out.begin(), out.end(), [](auto& b) { return b.empty(); })) {
    return absl::InvalidArgumentError(
        "bookie_src must be a bookie id or a non-empty list of them");
  }
  return out;
}

// Marks every ledger naming the bookies: the workers then move them off.
AdminReply StartDecommission(metadata::MetadataStore* store,
                             const AdminCall& call) {
  auto bookies = BookiesOfBody(call.body);
  if (!bookies.ok()) return Error(400, std::string(bookies.status().message()));
  UnderreplicationManager marks(store);
  json marked = json::object();
  for (const std::string& bookie : *bookies) {
    auto on = LedgersOnBookie(store, bookie);
    if (!on.ok()) return Unavailable(on.status());
    for (int64_t id : *on) {
      if (absl::Status s = marks.Mark(id, {bookie}, absl::Now()); !s.ok()) {
        return Unavailable(s);
      }
    }
    marked[bookie] = on->size();
  }
  return Reply(json{{"bookie_src", *bookies},
                    {"ledgersMarked", marked},
                    {"next",
                     "poll GET /api/v1/autorecovery/bookie?bookie_src=<id> "
                     "until ledgersRemaining is 0 and the bookie is stopped, "
                     "then DELETE it"}});
}

// The one bookie of ?bookie_src=id.
absl::StatusOr<std::string> BookieOfQuery(const std::string& query) {
  auto params = ParseQuery(query);
  if (!params.ok()) return params.status();
  auto it = params->find("bookie_src");
  if (it == params->end() || it->second.empty() || params->size() != 1) {
    return absl::InvalidArgumentError(
        "give exactly one parameter: ?bookie_src=<bookie id>");
  }
  return it->second;
}

absl::StatusOr<bool> Registered(metadata::MetadataStore* store,
                                const std::string& bookie) {
  auto set = store->ListBookies();
  if (!set.ok()) return set.status();
  for (const auto* list : {&set->writable, &set->readonly}) {
    for (const auto& b : *list) {
      if (b.bookie_id() == bookie) return true;
    }
  }
  return false;
}

AdminReply DecommissionProgress(metadata::MetadataStore* store,
                                const AdminCall& call) {
  auto bookie = BookieOfQuery(call.query);
  if (!bookie.ok()) return Error(400, std::string(bookie.status().message()));
  auto on = LedgersOnBookie(store, *bookie);
  if (!on.ok()) return Unavailable(on.status());
  auto registered = Registered(store, *bookie);
  if (!registered.ok()) return Unavailable(registered.status());
  return Reply(json{{"bookie", *bookie},
                    {"ledgersRemaining", on->size()},
                    {"registered", *registered}});
}

// Ends a decommission: the bookie's cookie goes, so its id can never come
// back with its old disks. Refused while anything still needs the bookie.
AdminReply FinishDecommission(metadata::MetadataStore* store,
                              const AdminCall& call) {
  auto bookie = BookieOfQuery(call.query);
  if (!bookie.ok()) return Error(400, std::string(bookie.status().message()));
  auto registered = Registered(store, *bookie);
  if (!registered.ok()) return Unavailable(registered.status());
  if (*registered) {
    return Error(
        409, absl::StrCat("bookie ", *bookie, " is registered: stop it first"));
  }
  auto on = LedgersOnBookie(store, *bookie);
  if (!on.ok()) return Unavailable(on.status());
  if (!on->empty()) {
    return Error(409, absl::StrCat(on->size(), " ledgers still name ", *bookie,
                                   ": PUT /api/v1/autorecovery/bookie and "
                                   "wait for autorecovery to move them"));
  }
  absl::Status s = store->DeleteCookie(*bookie, metadata::kAnyVersion);
  if (!s.ok() && !absl::IsNotFound(s)) return Unavailable(s);
  return Reply(json{{"bookie", *bookie},
                    {"cookieDeleted", s.ok()},
                    {"decommissioned", true}});
}

// Runs `fn` with the store, or answers 503 when it cannot be opened.
template <typename Fn>
std::function<AdminReply(const AdminCall&)> WithStore(StoreFn store, Fn fn) {
  return [store = std::move(store), fn](const AdminCall& call) {
    auto s = store();
    if (!s.ok()) return Unavailable(s.status());
    return fn(*s, call);
  };
}

}  // namespace

std::vector<AdminRoute> AutoRecoveryAdminRoutes(StoreFn store) {
  const std::string p = "/api/v1/autorecovery/";
  auto no_call = [](auto fn) {
    return [fn](metadata::MetadataStore* s, const AdminCall&) { return fn(s); };
  };
  return {
      {"GET", p + "list_under_replicated_ledger",
       WithStore(store, ListUnderReplicated)},
      {"GET", p + "who_is_auditor", WithStore(store, no_call(WhoIsAuditor))},
      {"GET", p + "status", WithStore(store, no_call(ReplicationStatus))},
      {"PUT", p + "status", WithStore(store, SetReplicationStatus)},
      {"PUT", p + "trigger_audit", WithStore(store, no_call(TriggerAudit))},
      {"GET", p + "lost_bookie_recovery_delay",
       WithStore(store, no_call(RecoveryDelay))},
      {"PUT", p + "lost_bookie_recovery_delay",
       WithStore(store, SetRecoveryDelay)},
      {"DELETE", p + "lost_bookie_recovery_delay",
       WithStore(store, no_call(ClearRecoveryDelay))},
      {"PUT", p + "bookie", WithStore(store, StartDecommission)},
      {"PUT", p + "decommission", WithStore(store, StartDecommission)},
      {"GET", p + "bookie", WithStore(store, DecommissionProgress)},
      {"DELETE", p + "bookie", WithStore(store, FinishDecommission)},
      {"GET", "/api/v1/bookie/cluster_info",
       WithStore(store, no_call(ClusterInfo))},
  };
}

}  // namespace bk::autorecovery
