// AutoRecoveryProbe: autorecovery's Prometheus metrics, registered once at
// construction (each process labels them with its id, `process`).
//
//   bk_autorecovery_auditor                    gauge, 1 while this process
//                                              is the auditor, else 0
//   bk_autorecovery_underreplicated_ledgers    gauge, ledgers marked (set
//                                              by the auditor)
//   bk_autorecovery_lost_bookie_recovery_delay_seconds gauge, the delay
//                                              the last audit applied (set
//                                              cluster-wide or configured)
//   bk_autorecovery_lost_bookie_recovery_delay_configured_seconds gauge,
//                                              this process's configuration
//   bk_autorecovery_audits_total               counter
//   bk_autorecovery_ledgers_rereplicated_total counter, marks removed
//   bk_autorecovery_fragments_rereplicated_total counter
//   bk_autorecovery_bytes_rereplicated_total   counter
//   bk_autorecovery_rereplication_failures_total counter
//   bk_autorecovery_bookie_repair_seconds      histogram, from a bookie's
//                                              loss to no ledger naming it
//
// Thread-safe (prometheus-cpp metrics are).

#ifndef BK_AUTORECOVERY_AUTORECOVERY_PROBE_H_
#define BK_AUTORECOVERY_AUTORECOVERY_PROBE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
}  // namespace prometheus

namespace bk::autorecovery {

class AutoRecoveryProbe {
 public:
  // `registry` must not be null; kept alive by the probe.
  AutoRecoveryProbe(std::shared_ptr<prometheus::Registry> registry,
                    const std::string& process);

  void SetAuditor(bool is_auditor);
  void SetUnderreplicated(int64_t ledgers);
  // Whether re-replication is enabled (bkctl replication), as this
  // process's workers last read it.
  void SetReplicationEnabled(bool enabled);
  void SetLostBookieRecoveryDelay(absl::Duration delay);
  void SetConfiguredLostBookieRecoveryDelay(absl::Duration delay);
  void Audited();
  void Repaired(int64_t fragments, int64_t bytes, bool ledger_done);
  void Failed();
  void BookieRepaired(absl::Duration since_loss);

  const std::shared_ptr<prometheus::Registry>& registry() const {
    return registry_;
  }

 private:
  // Constant after construction; the metrics are owned by the registry.
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Gauge* auditor_;
  prometheus::Gauge* underreplicated_;
  prometheus::Gauge* replication_enabled_;
  prometheus::Gauge* recovery_delay_;
  prometheus::Gauge* configured_delay_;
  prometheus::Counter* audits_;
  prometheus::Counter* ledgers_;
  prometheus::Counter* fragments_;
  prometheus::Counter* bytes_;
  prometheus::Counter* failures_;
  prometheus::Histogram* repair_seconds_;
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUTORECOVERY_PROBE_H_
