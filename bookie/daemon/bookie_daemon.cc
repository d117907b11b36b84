#include "bookie/daemon/bookie_daemon.h"

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bookie/cookie.h"
#include "bookie/daemon/bookie_info.h"
#include "bookie/daemon/bookie_metrics.h"
#include "bookie/daemon/metadata_ledger_filter.h"
#include "bookie/http/http_server.h"
#include "bookie/service/grpc_server.h"
#include "bookie/systemd_notify.h"
#include "common/logging.h"
#include "metadata/metadata_store.h"
#include "metadata/uri.h"
#include "monitor/base_metric_monitor.h"

namespace bk::bookie {

// The monitor's view of the bookie's own totals.
class StoreCounters final : public monitor::OwnCounters {
 public:
  explicit StoreCounters(BookieStoreImpl* store) : store_(store) {}
  int64_t BytesWritten() const override {
    return static_cast<int64_t>(store_->journal_stats().bytes_written);
  }
  int64_t JournalBusyNanos() const override {
    return static_cast<int64_t>(store_->journal_stats().busy_nanos_total);
  }
  int64_t LedgerBusyNanos() const override {
    return static_cast<int64_t>(store_->storage_stats().flush_busy_nanos);
  }

 private:
  BookieStoreImpl* const store_;
};

struct BookieDaemon::Parts {
  log::Logger log;
  Env* env = nullptr;  // not owned; outlives the daemon
  std::unique_ptr<metadata::MetadataStore> metadata;
  // Null in standalone mode (a private mem:// store). Used by the store's
  // GC thread: outlives the store.
  std::unique_ptr<MetadataLedgerFilter> gc_filter;
  std::string instance_id;
  std::shared_ptr<prometheus::Registry> registry;
  std::unique_ptr<JournalProbe> journal_probe;
  std::unique_ptr<ServiceProbe> service_probe;
  std::unique_ptr<BookieStoreImpl> store;
  std::unique_ptr<StoreCounters> counters;
  std::unique_ptr<monitor::BaseMetricMonitor> monitor;
  std::unique_ptr<DiskChecker> disk;
  std::unique_ptr<BookieServiceImpl> service;
  std::unique_ptr<GrpcServer> grpc;
  std::shared_ptr<StatsCollector> collector;
  std::unique_ptr<HttpServer> http;
  std::unique_ptr<metadata::Subscription> session_listener;
  std::atomic<bool> registered{false};
  std::atomic<bool> ready{false};
  int64_t start_time_ms = 0;

  absl::Mutex mu;
  DiskCheckResult last_disk ABSL_GUARDED_BY(mu);
  bool registered_read_only ABSL_GUARDED_BY(mu) = false;
};

absl::StatusOr<std::unique_ptr<BookieDaemon>> BookieDaemon::Start(
    DaemonOptions options, Env* env) {
  std::unique_ptr<BookieDaemon> d(new BookieDaemon(std::move(options), env));
  absl::Status s = d->DoStart();
  if (!s.ok()) return s;
  return d;
}

BookieDaemon::BookieDaemon(DaemonOptions options, Env* env)
    : options_(std::move(options)), parts_(std::make_unique<Parts>()) {
  parts_->env = env;
}

BookieDaemon::~BookieDaemon() { Shutdown(); }

int BookieDaemon::grpc_port() const {
  return parts_->grpc ? parts_->grpc->port() : 0;
}
int BookieDaemon::http_port() const {
  return parts_->http ? parts_->http->port() : 0;
}

absl::Status BookieDaemon::DoStart() {
  Parts& p = *parts_;
  p.log = log::Get("bookie");
  p.start_time_ms = absl::ToUnixMillis(absl::Now());

  metadata::OpenOptions mo;
  mo.session_timeout = options_.metadata_session_timeout;
  auto md = metadata::Open(options_.metadata_uri, mo);
  if (!md.ok()) return md.status();
  p.metadata = std::move(*md);
  auto instance = p.metadata->InstanceId();
  if (!instance.ok()) return instance.status();
  p.instance_id = *instance;

  if (absl::Status s = WaitForOldRegistration(); !s.ok()) return s;

  if (absl::Status s = CheckCookies(); !s.ok()) return s;

  p.registry = std::make_shared<prometheus::Registry>();
  p.journal_probe =
      std::make_unique<JournalProbe>(*p.registry, options_.bookie_id);
  p.service_probe =
      std::make_unique<ServiceProbe>(*p.registry, options_.bookie_id);
  StoreOptions so = options_.store;
  so.journal.observer = p.journal_probe.get();
  StartupReport report;
  auto store = BookieStoreImpl::Open(p.env, so, &report);
  if (!store.ok()) return store.status();
  p.store = std::move(*store);
  p.log->info(
      "journal replayed: {} records ({} entries), {} torn bytes cut, "
      "{} corrupt ranges skipped",
      report.journal.records, report.replayed_entries,
      report.journal.torn_bytes_cut, report.journal.skipped_ranges);
  InstallGcFilter();

  p.counters = std::make_unique<StoreCounters>(p.store.get());
  monitor::MonitorEnv menv;
  menv.counters = p.counters.get();
  auto mon = monitor::BaseMetricMonitor::Create(options_.monitor, menv);
  if (!mon.ok()) return mon.status();
  p.monitor = std::move(*mon);
  if (absl::Status s = p.monitor->Start(); !s.ok()) return s;

  std::vector<std::string> disk_dirs = options_.store.storage.ledger_dirs;
  for (const auto& j : options_.store.journal.dirs) disk_dirs.push_back(j);
  p.disk = std::make_unique<DiskChecker>(p.env, disk_dirs, options_.disk);
  {
    DiskCheckResult r = p.disk->Check();
    absl::MutexLock l(&p.mu);
    p.last_disk = r;
  }
  ApplyDiskState();

  ServiceOptions service_options = options_.service;
  service_options.latency_window_seconds = static_cast<int>(std::max<int64_t>(
      1, absl::ToInt64Seconds(options_.monitor.stat_interval *
                              options_.monitor.slide_window_size)));
  p.service = std::make_unique<BookieServiceImpl>(
      p.store.get(), service_options,
      [this](uint64_t requested) {
        Parts& q = *parts_;
        BookieInfoInputs in;
        in.load = q.monitor->Snapshot();
        in.store = q.store->Stats();
        {
          absl::MutexLock l(&q.mu);
          in.disk = q.last_disk;
        }
        in.add_latency_p99_ms = q.service->add_latency_p99_ms();
        return MakeBookieInfo(requested, in);
      },
      p.service_probe.get());
  auto creds = MakeServerCredentials(p.env, options_.tls);
  if (!creds.ok()) return creds.status();
  GrpcServerOptions go;
  go.address = absl::StrCat(options_.listen_address, ":", options_.grpc_port);
  go.credentials = *creds;
  go.max_message_bytes = options_.service.max_message_bytes;
  auto grpc = GrpcServer::Start(p.service.get(), go);
  if (!grpc.ok()) return grpc.status();
  p.grpc = std::move(*grpc);

  p.collector = std::make_shared<StatsCollector>(
      options_.bookie_id,
      StatsSources{[this] { return parts_->store->journal_stats(); },
                   [this] { return parts_->store->storage_stats(); },
                   [this] { return parts_->store->Stats(); },
                   [this] { return parts_->monitor->Snapshot(); },
                   [this] {
                     absl::MutexLock l(&parts_->mu);
                     return parts_->last_disk;
                   },
                   [this] { return parts_->registered.load(); },
                   [this] {
                     return parts_->gc_filter ? parts_->gc_filter->stats()
                                              : MetadataLedgerFilter::Stats{};
                   }});
  if (options_.http_enabled) {
    std::map<std::string, HttpHandler> routes;
    routes["/metrics"] = [this](const HttpRequest&) {
      Parts& q = *parts_;
      q.service_probe->AddsInFlight(q.service->adds_in_flight());
      q.service_probe->ReadsInFlight(q.service->reads_in_flight());
      auto families = q.registry->Collect();
      auto more = q.collector->Collect();
      families.insert(families.end(), more.begin(), more.end());
      return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8",
                          prometheus::TextSerializer().Serialize(families)};
    };
    routes["/health"] = [](const HttpRequest&) {
      return HttpResponse{200, "text/plain; charset=utf-8", "alive\n"};
    };
    routes["/ready"] = [this](const HttpRequest&) {
      Parts& q = *parts_;
      if (!q.ready || !q.registered) {
        return HttpResponse{
            503, "text/plain; charset=utf-8",
            q.ready ? "not ready: not registered\n" : "not ready: starting\n"};
      }
      StoreStats st = q.store->Stats();
      return HttpResponse{
          200, "text/plain; charset=utf-8",
          st.writable
              ? "ready: writable\n"
              : absl::StrCat("ready: read-only: ", st.unwritable_reason, "\n")};
    };
    auto http = HttpServer::Start(
        absl::StrCat(options_.listen_address, ":", options_.http_port),
        std::move(routes));
    if (!http.ok()) return http.status();
    p.http = std::move(*http);
  }

  if (absl::Status s = Register(); !s.ok()) return s;
  p.session_listener =
      p.metadata->AddSessionListener([this](metadata::SessionEvent e) {
        Parts& q = *parts_;
        if (e == metadata::SessionEvent::kExpired) {
          q.registered = false;
          q.log->warn(
              "metadata session expired; registration lost until "
              "the session is re-established");
        } else {
          q.registered = true;
          q.log->info("metadata session re-established; registered again");
        }
      });
  disk_thread_ = std::thread([this] { DiskLoop(); });
  p.ready = true;
  const std::string status =
      absl::StrCat("serving gRPC on ", grpc_port(), ", HTTP on ", http_port(),
                   " as ", options_.bookie_id);
  p.log->info("{}", status);
  NotifyReady(status);
  return absl::OkStatus();
}

// A registration under our id before we have registered is either a live
// bookie with the same id, or the leftover of a bookie that died (SIGKILL,
// power loss) whose metadata session has not expired yet. Wait up to two
// session timeouts for it to go, as BookKeeper does, then refuse: the id
// belongs to a live bookie. Runs before any directory is touched, so a
// second process on the same directories never opens them.
absl::Status BookieDaemon::WaitForOldRegistration() {
  Parts& p = *parts_;
  const absl::Time deadline =
      absl::Now() + 2 * options_.metadata_session_timeout;
  bool logged = false;
  while (true) {
    auto set = p.metadata->ListBookies();
    if (!set.ok()) return set.status();
    const proto::BookieServiceInfo* found = nullptr;
    for (const auto* list : {&set->writable, &set->readonly}) {
      for (const auto& b : *list) {
        if (b.bookie_id() == options_.bookie_id) found = &b;
      }
    }
    if (found == nullptr) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::AlreadyExistsError(
          absl::StrCat("another live bookie is registered as ",
                       options_.bookie_id, " (gRPC ", found->grpc_endpoint(),
                       "); refusing to serve with a duplicate id"));
    }
    if (!logged) {
      p.log->warn(
          "bookie id {} is registered (gRPC {}); waiting up to {} for a "
          "dead predecessor's session to expire",
          options_.bookie_id, found->grpc_endpoint(),
          absl::FormatDuration(deadline - absl::Now()));
      logged = true;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
}

// GC deletes a ledger once the metadata store says it is gone. A private
// mem:// store is one no client can reach: every ledger would look deleted,
// so that standalone mode deletes none.
void BookieDaemon::InstallGcFilter() {
  Parts& p = *parts_;
  auto uri = metadata::ParseStoreUri(options_.metadata_uri);
  if (uri.ok() && uri->scheme == "mem" && uri->name.empty()) {
    p.log->warn(
        "metadata store {} is private to this process: GC deletes no "
        "ledgers",
        options_.metadata_uri);
    return;
  }
  p.gc_filter = std::make_unique<MetadataLedgerFilter>(p.metadata.get());
  MetadataLedgerFilter* filter = p.gc_filter.get();
  p.store->storage()->SetDeletedLedgerFilter(
      [filter] { return filter->NewPass(); });
  const absl::Duration every = options_.store.storage.gc_wait_time;
  if (every > absl::ZeroDuration()) {
    p.log->info(
        "GC every {} deletes ledgers whose metadata is gone from {}, "
        "re-reading each one's metadata first",
        absl::FormatDuration(every), options_.metadata_uri);
  } else {
    p.log->warn("gcWaitTime=0: no background GC; deleted ledgers stay");
  }
}

absl::Status BookieDaemon::CheckCookies() {
  Parts& p = *parts_;
  const proto::Cookie expected =
      MakeCookie(options_.bookie_id, p.instance_id, options_.store.journal.dirs,
                 options_.store.storage.ledger_dirs);
  bool any_local = false;
  for (const auto* dirs :
       {&options_.store.journal.dirs, &options_.store.storage.ledger_dirs}) {
    for (const auto& dir : *dirs) {
      if (ReadCookie(p.env, dir).ok()) any_local = true;
    }
  }
  auto stored = p.metadata->ReadCookie(options_.bookie_id);
  if (stored.ok() && !any_local) {
    return absl::FailedPreconditionError(absl::StrCat(
        "bookie ", options_.bookie_id,
        " has a cookie in the metadata store but none of its directories "
        "holds one: the disks were wiped or replaced. Its data is gone from "
        "this machine; run `bookie format` to start it empty (the cluster "
        "then re-replicates), or point it at its old directories"));
  }
  if (!stored.ok() && !absl::IsNotFound(stored.status())) {
    return stored.status();
  }
  if (absl::Status s = VerifyOrCreateCookies(p.env, expected); !s.ok()) {
    return s;
  }
  if (!stored.ok()) {
    auto v = p.metadata->WriteCookie(options_.bookie_id, expected,
                                     metadata::kNotExists);
    return v.status();
  }
  std::vector<std::string> diffs = CookieDifferences(stored->value, expected);
  if (!diffs.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the cookie of bookie ", options_.bookie_id,
        " in the metadata store differs from this configuration: ",
        absl::StrJoin(diffs, "; "),
        ". Restore the old configuration, or run `bookie format` to start "
        "this bookie empty"));
  }
  return absl::OkStatus();
}

absl::Status BookieDaemon::Register() {
  Parts& p = *parts_;
  proto::BookieServiceInfo info;
  info.set_bookie_id(options_.bookie_id);
  info.set_grpc_endpoint(
      absl::StrCat(options_.advertised_address, ":", grpc_port()));
  if (p.http) {
    info.set_http_endpoint(
        absl::StrCat(options_.advertised_address, ":", http_port()));
  }
  info.set_network_location(options_.network_location);
  const bool read_only = !p.store->Stats().writable;
  info.set_read_only(read_only);
  info.set_start_time_ms(p.start_time_ms);
  info.set_version(BK_VERSION);
  absl::Status s = p.metadata->RegisterBookie(info);
  if (absl::IsAlreadyExists(s)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "another live bookie is registered as ", options_.bookie_id,
        "; refusing to serve with a duplicate id"));
  }
  if (!s.ok()) return s;
  {
    absl::MutexLock l(&p.mu);
    p.registered_read_only = read_only;
  }
  p.registered = true;
  return absl::OkStatus();
}

void BookieDaemon::ApplyDiskState() {
  Parts& p = *parts_;
  DiskCheckResult r;
  {
    absl::MutexLock l(&p.mu);
    r = p.last_disk;
  }
  if (options_.force_read_only) {
    p.store->SetReadOnly(true, "forceReadOnlyBookie is set");
    return;
  }
  if (r.state == DiskState::kReadOnly) {
    p.store->SetReadOnly(true,
                         absl::StrCat("disk usage ", r.max_usage, " above ",
                                      options_.disk.usage_threshold));
  } else {
    p.store->SetReadOnly(false, "");
  }
  if (r.changed()) {
    p.log->warn("disk state {} -> {} (max usage {:.3f})",
                DiskStateName(r.previous), DiskStateName(r.state), r.max_usage);
  }
}

void BookieDaemon::DiskLoop() {
  Parts& p = *parts_;
  while (true) {
    {
      absl::MutexLock l(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&shutdown_requested_),
                               options_.disk.check_interval)) {
        return;
      }
    }
    DiskCheckResult r = p.disk->Check();
    {
      absl::MutexLock l(&p.mu);
      p.last_disk = r;
    }
    ApplyDiskState();
    // Keep the registration's read-only flag current (journal failures
    // included: an unwritable bookie must not be chosen for new ledgers).
    const bool read_only = !p.store->Stats().writable;
    bool changed;
    {
      absl::MutexLock l(&p.mu);
      changed = read_only != p.registered_read_only;
    }
    if (changed && p.registered) {
      absl::Status s = Register();
      if (!s.ok())
        p.log->error("re-registration failed: {}", s.ToString());
      else
        p.log->info("registered as {}", read_only ? "read-only" : "writable");
    }
  }
}

void BookieDaemon::RequestShutdown() {
  absl::MutexLock l(&mu_);
  shutdown_requested_ = true;
}

absl::Status BookieDaemon::WaitAndShutdown() {
  {
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(&shutdown_requested_));
  }
  Shutdown();
  return absl::OkStatus();
}

void BookieDaemon::Shutdown() {
  {
    absl::MutexLock l(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    shutdown_requested_ = true;
  }
  Parts& p = *parts_;
  if (p.log) p.log->info("shutting down");
  NotifyStopping("draining");
  if (disk_thread_.joinable()) disk_thread_.join();
  p.session_listener.reset();
  if (p.metadata && p.registered) {
    p.metadata->UnregisterBookie(options_.bookie_id).IgnoreError();
    p.registered = false;
  }
  // The store first: it refuses new adds, answers every long poll, lets the
  // journal complete the adds it accepted, flushes and checkpoints. gRPC's
  // shutdown waits for every call, and long polls end only when answered.
  if (p.store) {
    absl::Status s = p.store->Close();
    if (!s.ok() && p.log) p.log->error("close: {}", s.ToString());
  }
  if (p.grpc) p.grpc->Shutdown(options_.shutdown_timeout / 2);
  if (p.monitor) p.monitor->Stop();
  p.http.reset();
  p.grpc.reset();
  p.service.reset();
  p.store.reset();
  p.gc_filter.reset();
  p.metadata.reset();
  if (p.log) p.log->info("stopped");
}

}  // namespace bk::bookie
