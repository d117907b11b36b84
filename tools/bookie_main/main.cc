// The `bookie` executable: the daemon (bookie/daemon/bookie_main.h) and,
// when autoRecoveryDaemonEnabled is set, autorecovery (the auditor and a
// replication worker, autorecovery/autorecovery.h) in the same process, as
// a BookKeeper bookie runs its AutoRecoveryMain. The composition is here,
// in the program, because bookie libraries never include client or
// autorecovery code (README.md's layout table).
//
// Keys beyond the bookie's own: autoRecoveryDaemonEnabled, and every
// autorecovery key the bookie does not already have (metadataServiceUri
// and zkTimeout are the bookie's). With prometheusStatsHttpPort set,
// autorecovery's metrics are served on that port.
//
// The bookie's HTTP port also serves autorecovery's admin endpoints
// (autorecovery/admin_routes.h; /api/v1/autorecovery/...), whether or not
// autorecovery runs here: they work on the metadata store, opened with the
// bookie's settings on first use. They are adapted here to the bookie's
// HTTP routes, whose router checks the admin token of every PUT and DELETE.

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "autorecovery/admin_routes.h"
#include "autorecovery/autorecovery.h"
#include "autorecovery/autorecovery_config.h"
#include "bookie/daemon/bookie_config.h"
#include "bookie/daemon/bookie_main.h"
#include "metadata/metadata_store.h"

namespace {

constexpr char kEnabled[] = "autoRecoveryDaemonEnabled";

const bk::ConfigSchema& ExtraKeys() {
  static const bk::ConfigSchema* schema = [] {
    auto* s = new bk::ConfigSchema();
    bk::OptionDef enabled;
    enabled.key = kEnabled;
    enabled.type = bk::OptionType::kBool;
    enabled.default_value = "false";
    enabled.unit = "-";
    enabled.help =
        "run autorecovery (auditor and a replication worker) in this bookie's "
        "process; its keys are autorecovery/CONFIG.md's";
    s->Add(enabled);
    for (const auto& o :
         bk::autorecovery::AutoRecoveryConfigTable().schema().options()) {
      if (bk::bookie::BookieConfigSchema().Find(o.key) == nullptr) s->Add(o);
    }
    return s;
  }();
  return *schema;
}

absl::StatusOr<std::function<void()>> StartAutoRecovery(
    const bk::Config& config) {
  if (!config.GetBool(kEnabled)) return std::function<void()>();
  bk::autorecovery::AutoRecoveryOptions o;
  if (absl::Status s =
          bk::autorecovery::AutoRecoveryConfigTable().Apply(config, &o);
      !s.ok()) {
    return s;
  }
  if (!o.ledger_password_file.empty()) {
    auto p = bk::autorecovery::ReadPasswordFile(o.ledger_password_file);
    if (!p.ok()) return p.status();
    o.ledger_passwords = *std::move(p);
  }
  const int metrics_port = o.prometheus_stats_http_port;
  auto ar = bk::autorecovery::AutoRecovery::Start(std::move(o));
  if (!ar.ok()) return ar.status();
  std::shared_ptr<bk::autorecovery::AutoRecovery> running = std::move(*ar);
  // Autorecovery's metrics on a port of their own (the bookie's registry
  // is the daemon's business).
  std::shared_ptr<prometheus::Exposer> exposer;
  if (metrics_port > 0) {
    exposer = std::make_shared<prometheus::Exposer>(
        "0.0.0.0:" + std::to_string(metrics_port));
    exposer->RegisterCollectable(running->metrics_registry());
  }
  return std::function<void()>([running, exposer] { running->Stop(); });
}

// The metadata store of the autorecovery endpoints, opened on first use
// (a failure is retried on the next call). Lives until the process exits.
class LazyStore {
 public:
  LazyStore(std::string uri, bk::metadata::OpenOptions options)
      : uri_(std::move(uri)), options_(std::move(options)) {}

  absl::StatusOr<bk::metadata::MetadataStore*> Get() {
    absl::MutexLock l(&mu_);
    if (store_ == nullptr) {
      auto opened = bk::metadata::Open(uri_, options_);
      if (!opened.ok()) return opened.status();
      store_ = std::move(*opened);
    }
    return store_.get();
  }

 private:
  const std::string uri_;
  const bk::metadata::OpenOptions options_;
  absl::Mutex mu_;
  std::unique_ptr<bk::metadata::MetadataStore> store_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::vector<bk::bookie::HttpRoute>> AutoRecoveryHttpRoutes(
    const bk::Config&, const bk::bookie::DaemonOptions& options) {
  // Never destroyed: the HTTP server's threads may use it until exit.
  auto* store = new LazyStore(options.metadata_uri,
                              bk::bookie::MetadataOpenOptions(options));
  std::vector<bk::bookie::HttpRoute> out;
  for (auto& r : bk::autorecovery::AutoRecoveryAdminRoutes(
           [store] { return store->Get(); })) {
    out.push_back(
        {r.method, r.path,
         [handler = std::move(r.handler)](const bk::bookie::HttpRequest& req) {
           bk::autorecovery::AdminReply reply =
               handler(bk::autorecovery::AdminCall{req.query, req.body});
           return bk::bookie::HttpResponse{
               reply.status, "application/json", std::move(reply.json), {}};
         }});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bk::bookie::BookieMainHooks hooks;
  hooks.extra_keys = &ExtraKeys();
  hooks.start_companion = StartAutoRecovery;
  hooks.http_routes = AutoRecoveryHttpRoutes;
  return bk::bookie::RunBookie(argc, argv, hooks);
}
