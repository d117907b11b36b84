#include "autorecovery/autorecovery_probe.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace bk::autorecovery {
namespace {

prometheus::Counter* Counter(prometheus::Registry& r, const char* name,
                             const char* help,
                             const prometheus::Labels& labels) {
  return &prometheus::BuildCounter().Name(name).Help(help).Register(r).Add(
      labels);
}

prometheus::Gauge* Gauge(prometheus::Registry& r, const char* name,
                         const char* help, const prometheus::Labels& labels) {
  return &prometheus::BuildGauge().Name(name).Help(help).Register(r).Add(
      labels);
}

}  // namespace

AutoRecoveryProbe::AutoRecoveryProbe(
    std::shared_ptr<prometheus::Registry> registry, const std::string& process)
    : registry_(std::move(registry)) {
  auto& r = *registry_;
  const prometheus::Labels l = {{"process", process}};
  auditor_ = Gauge(r, "bk_autorecovery_auditor",
                   "1 while this process is the cluster's auditor", l);
  underreplicated_ =
      Gauge(r, "bk_autorecovery_underreplicated_ledgers",
            "Ledgers marked under-replicated (set by the auditor)", l);
  replication_enabled_ =
      Gauge(r, "bk_autorecovery_replication_enabled",
            "0 while an operator has paused re-replication (bkctl "
            "replication disable), else 1",
            l);
  replication_enabled_->Set(1);
  recovery_delay_ =
      Gauge(r, "bk_autorecovery_lost_bookie_recovery_delay_seconds",
            "lostBookieRecoveryDelay as the auditor last applied it (set "
            "cluster-wide with bkctl replication delay, else configured)",
            l);
  configured_delay_ =
      Gauge(r, "bk_autorecovery_lost_bookie_recovery_delay_configured_seconds",
            "lostBookieRecoveryDelay in this process's configuration", l);
  audits_ = Counter(r, "bk_autorecovery_audits_total", "Audits run", l);
  ledgers_ = Counter(r, "bk_autorecovery_ledgers_rereplicated_total",
                     "Ledgers whose mark was removed after repair", l);
  fragments_ = Counter(r, "bk_autorecovery_fragments_rereplicated_total",
                       "Fragments copied to a new bookie and swapped in", l);
  bytes_ = Counter(r, "bk_autorecovery_bytes_rereplicated_total",
                   "Entry bytes copied to new bookies", l);
  failures_ =
      Counter(r, "bk_autorecovery_rereplication_failures_total",
              "Ledger repairs that failed (retried after a back-off)", l);
  repair_seconds_ =
      &prometheus::BuildHistogram()
           .Name("bk_autorecovery_bookie_repair_seconds")
           .Help(
               "From a bookie's loss (first seen missing) to no ledger "
               "naming it")
           .Register(r)
           .Add(l,
                prometheus::Histogram::BucketBoundaries{
                    10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400});
}

void AutoRecoveryProbe::SetAuditor(bool is_auditor) {
  auditor_->Set(is_auditor ? 1 : 0);
}
void AutoRecoveryProbe::SetUnderreplicated(int64_t ledgers) {
  underreplicated_->Set(static_cast<double>(ledgers));
}
void AutoRecoveryProbe::SetReplicationEnabled(bool enabled) {
  replication_enabled_->Set(enabled ? 1 : 0);
}
void AutoRecoveryProbe::SetLostBookieRecoveryDelay(absl::Duration delay) {
  recovery_delay_->Set(absl::ToDoubleSeconds(delay));
}
void AutoRecoveryProbe::SetConfiguredLostBookieRecoveryDelay(
    absl::Duration delay) {
  configured_delay_->Set(absl::ToDoubleSeconds(delay));
}
void AutoRecoveryProbe::Audited() { audits_->Increment(); }
void AutoRecoveryProbe::Repaired(int64_t fragments, int64_t bytes,
                                 bool ledger_done) {
  fragments_->Increment(static_cast<double>(fragments));
  bytes_->Increment(static_cast<double>(bytes));
  if (ledger_done) ledgers_->Increment();
}
void AutoRecoveryProbe::Failed() { failures_->Increment(); }
void AutoRecoveryProbe::BookieRepaired(absl::Duration since_loss) {
  repair_seconds_->Observe(absl::ToDoubleSeconds(since_loss));
}

}  // namespace bk::autorecovery
