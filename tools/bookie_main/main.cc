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

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "autorecovery/autorecovery.h"
#include "autorecovery/autorecovery_config.h"
#include "bookie/daemon/bookie_config.h"
#include "bookie/daemon/bookie_main.h"

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

}  // namespace

int main(int argc, char** argv) {
  bk::bookie::BookieMainHooks hooks;
  hooks.extra_keys = &ExtraKeys();
  hooks.start_companion = StartAutoRecovery;
  return bk::bookie::RunBookie(argc, argv, hooks);
}
