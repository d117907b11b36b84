// lostBookieRecoveryDelay set cluster-wide at run time, at BookKeeper's
// node `underreplication/lostBookieRecoveryDelay` (whole seconds, as
// decimal text). While the node exists it overrides the delay each
// autorecovery process was configured with; the auditor reads it at every
// audit, so a change needs no restart. Without the node every auditor uses
// its own configuration. (BookKeeper's first auditor writes its configured
// value there and later configuration changes are then silently ignored;
// here the node exists only when an operator set it, and can be cleared.)

#ifndef BK_AUTORECOVERY_RECOVERY_DELAY_H_
#define BK_AUTORECOVERY_RECOVERY_DELAY_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

inline constexpr char kLostBookieRecoveryDelayNode[] =
    "underreplication/lostBookieRecoveryDelay";
// The configuration's range for lostBookieRecoveryDelay.
inline constexpr int64_t kMaxLostBookieRecoveryDelaySeconds = 10'000'000;

// Sets the cluster-wide delay. InvalidArgument (nothing written) when
// `seconds` is outside 0..kMaxLostBookieRecoveryDelaySeconds.
absl::Status SetLostBookieRecoveryDelay(metadata::MetadataStore* store,
                                        int64_t seconds);

// Removes the cluster-wide delay (each auditor's configured one applies
// again). Removing what is not there is OK.
absl::Status ClearLostBookieRecoveryDelay(metadata::MetadataStore* store);

// The cluster-wide delay; nullopt when none is set. DataLoss when the node
// holds anything but a number of seconds in range.
absl::StatusOr<std::optional<absl::Duration>> ReadLostBookieRecoveryDelay(
    metadata::MetadataStore* store);

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_RECOVERY_DELAY_H_
