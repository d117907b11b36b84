#include "autorecovery/operator_actions.h"

#include "autorecovery/autorecovery.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"

namespace bk::autorecovery {

absl::Status SetReplicationEnabledByOperator(metadata::MetadataStore* store,
                                             bool enabled, absl::Time now) {
  UnderreplicationManager marks(store);
  if (absl::Status s = marks.SetReplicationEnabled(enabled, now); !s.ok()) {
    return s;
  }
  return enabled ? RequestAudit(store) : absl::OkStatus();
}

absl::Status ChangeLostBookieRecoveryDelay(metadata::MetadataStore* store,
                                           std::optional<int64_t> seconds) {
  absl::Status s = seconds.has_value()
                       ? SetLostBookieRecoveryDelay(store, *seconds)
                       : ClearLostBookieRecoveryDelay(store);
  if (!s.ok()) return s;
  return RequestAudit(store);
}

}  // namespace bk::autorecovery
