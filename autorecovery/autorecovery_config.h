// The autorecovery keys, each bound once to its AutoRecoveryOptions field
// (common/config_table.h): the table behind AutoRecoveryOptionsFromKeys,
// `bkctl autorecovery --help` and autorecovery/CONFIG.md.

#ifndef BK_AUTORECOVERY_AUTORECOVERY_CONFIG_H_
#define BK_AUTORECOVERY_AUTORECOVERY_CONFIG_H_

#include "autorecovery/autorecovery_options.h"
#include "common/config_table.h"

namespace bk::autorecovery {

// Built on first use, never destroyed.
const ConfigTable<AutoRecoveryOptions>& AutoRecoveryConfigTable();

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUTORECOVERY_CONFIG_H_
