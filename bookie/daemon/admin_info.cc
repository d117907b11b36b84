// The admin API's figures: disk and load (BP-65), the cluster's bookies as
// registered, and the effective configuration (admin_api.h).

#include <netdb.h>
#include <sys/socket.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "bookie/daemon/admin_api.h"
#include "bookie/daemon/bookie_config.h"
#include "bookie/daemon/bookie_info.h"
#include "proto/enum_names.h"

namespace bk::bookie {
namespace {

using nlohmann::json;

// BookKeeper's freeSpace / totalSpace, then this project's load figures
// (GetBookieInfo's, -1 where unknown) and each directory's usage.
HttpResponse Info(DaemonParts& p) {
  BookieInfoInputs in;
  in.load = p.monitor->Snapshot();
  in.store = p.store->Stats();
  in.disk = p.LastDisk();
  in.add_latency_p99_ms = p.service->add_latency_p99_ms();
  const proto::GetBookieInfoResponse r = MakeBookieInfo(
      proto::TOTAL_DISK_CAPACITY | proto::FREE_DISK_SPACE | proto::LOAD, in);
  json dirs = json::array();
  for (const DirUsage& d : in.disk.dirs) {
    dirs.push_back(json{{"dir", d.dir},
                        {"usage", d.usage},
                        {"totalSpace", d.total_bytes},
                        {"freeSpace", d.free_bytes},
                        {"error", d.error.ok() ? "" : d.error.ToString()}});
  }
  return JsonResponse(json{
      {"freeSpace", r.free_disk_space()},
      {"totalSpace", r.total_disk_capacity()},
      {"readOnly", r.read_only()},
      {"load",
       {{"journalIoUtil", r.journal_io_util()},
        {"journalIoUtilMax", r.journal_io_util_max()},
        {"journalUtilSource", proto::UtilSourceName(r.journal_util_source())},
        {"ledgerIoUtil", r.ledger_io_util()},
        {"ledgerIoUtilMax", r.ledger_io_util_max()},
        {"ledgerUtilSource", proto::UtilSourceName(r.ledger_util_source())},
        {"cpuUsedRate", r.cpu_used_rate()},
        {"writeBytesPerSecond", r.write_bytes_per_second()},
        {"journalDeviceWriteBytesPerSecond",
         r.journal_device_write_bytes_per_second()},
        {"windowMs", r.window_ms()},
        {"addsInFlight", r.adds_in_flight()},
        {"journalQueueDepth", r.journal_queue_depth()},
        {"addLatencyP99Ms", r.add_latency_p99_ms()}}},
      {"dirs", dirs}});
}

// The host of "host:port", by reverse lookup when it is an address (the
// address itself when the lookup fails).
std::string HostName(const std::string& endpoint) {
  std::string host = endpoint.substr(0, endpoint.rfind(':'));
  struct addrinfo hints = {};
  hints.ai_flags = AI_NUMERICHOST;
  struct addrinfo* ai = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &ai) != 0) return host;
  char name[NI_MAXHOST];
  if (getnameinfo(ai->ai_addr, ai->ai_addrlen, name, sizeof(name), nullptr, 0,
                  NI_NAMEREQD) == 0) {
    host = name;
  }
  freeaddrinfo(ai);
  return host;
}

// BookKeeper's {"<bookie>": "<hostname>" or null}, for type=rw, ro or (ours)
// both when type is absent.
HttpResponse ListBookies(DaemonParts& p, const HttpRequest& req) {
  auto params = ParseQuery(req.query);
  if (!params.ok())
    return JsonError(400, std::string(params.status().message()));
  auto hostnames = QueryBool(*params, "print_hostnames", false);
  if (!hostnames.ok()) {
    return JsonError(400, std::string(hostnames.status().message()));
  }
  std::string type = "all";
  if (auto it = params->find("type"); it != params->end()) type = it->second;
  if (type != "rw" && type != "ro" && type != "all") {
    return JsonError(400, "type must be rw, ro or absent (both)");
  }
  auto set = p.metadata->ListBookies();
  if (!set.ok()) return JsonError(503, std::string(set.status().message()));
  json out = json::object();
  auto add = [&](const std::vector<proto::BookieServiceInfo>& list) {
    for (const auto& b : list) {
      out[b.bookie_id()] =
          *hostnames ? json(HostName(b.grpc_endpoint())) : json(nullptr);
    }
  };
  if (type != "ro") add(set->writable);
  if (type != "rw") add(set->readonly);
  return JsonResponse(out);
}

bool LooksSecret(const OptionDef& def) {
  const std::string key = absl::AsciiStrToLower(def.key);
  return def.secret || absl::StrContains(key, "password") ||
         absl::StrContains(key, "secret");
}

}  // namespace

nlohmann::json EffectiveConfig(const DaemonOptions& options) {
  const ConfigTable<DaemonOptions>& table = BookieConfigTable();
  json out = json::object();
  for (const auto& [key, value] : table.Values(options)) {
    const OptionDef* def = table.schema().Find(key);
    out[key] = def != nullptr && LooksSecret(*def) && !value.empty()
                   ? std::string("****")
                   : value;
  }
  return out;
}

std::vector<HttpRoute> AdminInfoRoutes(const DaemonOptions& options,
                                       DaemonParts& p) {
  DaemonParts* q = &p;
  // The configuration cannot change while the bookie runs.
  const std::string config = JsonResponse(EffectiveConfig(options)).body;
  return {
      {"GET", "/api/v1/bookie/info",
       [q](const HttpRequest&) { return Info(*q); }},
      {"GET", "/api/v1/bookie/list_bookies",
       [q](const HttpRequest& req) { return ListBookies(*q, req); }},
      {"GET", "/api/v1/config/server_config",
       [config](const HttpRequest&) {
         return HttpResponse{200, "application/json", config, {}};
       }},
  };
}

}  // namespace bk::bookie
