// What an operator changes cluster-wide, done one way for every surface
// that offers it (`bkctl replication`, the admin HTTP API): the change in
// the metadata store, then an audit request so the auditor acts on it at
// once instead of at its next periodic audit.

#ifndef BK_AUTORECOVERY_OPERATOR_ACTIONS_H_
#define BK_AUTORECOVERY_OPERATOR_ACTIONS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

// Pauses (false) or resumes (true) re-replication (underreplication.h);
// resuming requests an audit, so bookies lost while paused are found now.
absl::Status SetReplicationEnabledByOperator(metadata::MetadataStore* store,
                                             bool enabled, absl::Time now);

// Sets lostBookieRecoveryDelay cluster-wide (`seconds`) or clears it
// (nullopt) (recovery_delay.h), then requests an audit. InvalidArgument,
// nothing written, for seconds out of range.
absl::Status ChangeLostBookieRecoveryDelay(metadata::MetadataStore* store,
                                           std::optional<int64_t> seconds);

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_OPERATOR_ACTIONS_H_
