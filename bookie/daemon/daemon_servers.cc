// The gRPC and HTTP servers of a running bookie (daemon_wiring.h).

#include <prometheus/text_serializer.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "bookie/daemon/admin_api.h"
#include "bookie/daemon/bookie_info.h"
#include "bookie/daemon/daemon_wiring.h"
#include "bookie/daemon/process_collector.h"

namespace bk::bookie {
namespace {

// GetBookieInfo's answer: the load monitor's window, the store, the last
// disk check and the service's own add latency.
InfoProvider MakeInfoProvider(DaemonParts& p) {
  return [&p](uint64_t requested) {
    BookieInfoInputs in;
    in.load = p.monitor->Snapshot();
    in.store = p.store->Stats();
    in.disk = p.LastDisk();
    in.add_latency_p99_ms = p.service->add_latency_p99_ms();
    return MakeBookieInfo(requested, in);
  };
}

HttpResponse Metrics(DaemonParts& p) {
  p.service_probe->AddsInFlight(p.service->adds_in_flight());
  p.service_probe->ReadsInFlight(p.service->reads_in_flight());
  p.service_probe->AddStreamsPaused(p.service->add_streams_paused());
  p.service_probe->LongPollsParked(p.service->long_polls_parked());
  auto families = p.registry->Collect();
  for (std::vector<prometheus::MetricFamily> more :
       {p.collector->Collect(), ProcessFamilies(monitor::ReadProcessStats())}) {
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  }
  return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                      prometheus::TextSerializer().Serialize(families)};
}

// 200 while the bookie runs; 503 after a failure only a restart clears, so
// a liveness probe restarts it.
HttpResponse Health(DaemonParts& p) {
  if (p.store) {
    StoreStats st = p.store->Stats();
    if (!st.healthy) {
      return HttpResponse{503, "text/plain; charset=utf-8",
                          absl::StrCat("failed (restart to recover): ",
                                       st.unhealthy_reason, "\n")};
    }
  }
  return HttpResponse{200, "text/plain; charset=utf-8", "alive\n"};
}

HttpResponse Ready(DaemonParts& p) {
  if (!p.ready || !p.registered) {
    return HttpResponse{
        503, "text/plain; charset=utf-8",
        p.ready ? "not ready: not registered\n" : "not ready: starting\n"};
  }
  StoreStats st = p.store->Stats();
  if (!st.checkpoint_error.empty()) {
    return HttpResponse{
        503, "text/plain; charset=utf-8",
        absl::StrCat("not ready: journal checkpoint failed (restart to "
                     "recover): ",
                     st.checkpoint_error, "\n")};
  }
  return HttpResponse{
      200, "text/plain; charset=utf-8",
      st.writable
          ? "ready: writable\n"
          : absl::StrCat("ready: read-only: ", st.unwritable_reason, "\n")};
}

}  // namespace

absl::Status StartService(const DaemonOptions& options, DaemonParts& p) {
  ServiceOptions service_options = options.service;
  const absl::Time pool_start = absl::Now();
  auto blocks = EntryBlockPool::Create(options.store.storage.write_cache_bytes,
                                       options.write_cache_pre_touch);
  if (!blocks.ok()) return blocks.status();
  service_options.entry_blocks = *std::move(blocks);
  p.log->info("entry memory: {} blocks of {} KiB reserved{} in {} ms",
              service_options.entry_blocks->blocks(),
              EntryBlockPool::kBlockBytes >> 10,
              service_options.entry_blocks->pre_touched() ? " and touched" : "",
              absl::ToInt64Milliseconds(absl::Now() - pool_start));
  service_options.latency_window_seconds = static_cast<int>(std::max<int64_t>(
      1, absl::ToInt64Seconds(options.monitor.stat_interval *
                              options.monitor.slide_window_size)));
  p.service = std::make_unique<BookieServiceImpl>(
      p.store.get(), service_options, MakeInfoProvider(p),
      p.service_probe.get());
  auto creds = MakeServerCredentials(p.env, options.tls);
  if (!creds.ok()) return creds.status();
  GrpcServerOptions go;
  go.address = absl::StrCat(options.listen_address, ":", options.grpc_port);
  go.credentials = *creds;
  go.max_message_bytes = options.service.max_message_bytes;
  auto grpc = GrpcServer::Start(p.service.get(), go);
  if (!grpc.ok()) return grpc.status();
  p.grpc = std::move(*grpc);
  return absl::OkStatus();
}

absl::Status LoadHttpAdminToken(const DaemonOptions& options, DaemonParts& p) {
  if (!options.http_enabled || !options.http_admin_enabled) {
    return absl::OkStatus();
  }
  auto token = LoadAdminToken(options.http_admin_token_file);
  if (!token.ok()) {
    return absl::Status(
        token.status().code(),
        absl::StrCat("bookie start refused: ", token.status().message()));
  }
  p.http_admin_token = *std::move(token);
  return absl::OkStatus();
}

absl::Status StartHttp(const DaemonOptions& options, DaemonParts& p) {
  DaemonParts* q = &p;
  p.collector = std::make_shared<StatsCollector>(
      options.bookie_id,
      StatsSources{
          [q] { return q->store->journal_stats(); },
          [q] { return q->store->storage_stats(); },
          [q] { return q->store->Stats(); },
          [q] { return q->monitor->Snapshot(); }, [q] { return q->LastDisk(); },
          [q] { return q->registered.load(); },
          [q] {
            return q->gc_filter ? q->gc_filter->stats()
                                : MetadataLedgerFilter::Stats{};
          },
          [q] {
            return q->registration ? q->registration->failures() : uint64_t{0};
          }});
  if (!options.http_enabled) return absl::OkStatus();
  HttpRouter router{AdminAuth(
      AdminAuthOptions{options.http_admin_enabled, p.http_admin_token})};
  std::vector<HttpRoute> routes = {
      {"GET", "/metrics", [q](const HttpRequest&) { return Metrics(*q); }},
      {"GET", "/health", [q](const HttpRequest&) { return Health(*q); }},
      {"GET", "/ready", [q](const HttpRequest&) { return Ready(*q); }}};
  for (auto* more : {&AdminStateRoutes, &AdminInfoRoutes, &AdminStorageRoutes,
                     &AdminLedgerRoutes}) {
    for (HttpRoute& r : (*more)(options, p)) routes.push_back(std::move(r));
  }
  for (const HttpRoute& r : options.extra_http_routes) routes.push_back(r);
  for (HttpRoute& r : routes) {
    if (absl::Status s = router.Add(std::move(r)); !s.ok()) return s;
  }
  HttpServerOptions http_options;
  http_options.max_body_bytes = options.http_max_body_bytes;
  http_options.max_body_key = "httpServerMaxBodyBytes";
  auto http = HttpServer::Start(
      absl::StrCat(options.listen_address, ":", options.http_port),
      std::move(router), http_options);
  if (!http.ok()) return http.status();
  p.http = std::move(*http);
  return absl::OkStatus();
}

}  // namespace bk::bookie
