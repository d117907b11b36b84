// The bookie's configuration keys: BookKeeper's names where BookKeeper has
// the key, each bound once to its DaemonOptions field with its unit, range
// and one-line meaning (common/config_table.h). A key's default is its
// field's default. This table is the single source of `bookie --help`,
// `--print-config`, `--print-config-template` (deploy/config/bookie.conf)
// and bookie/CONFIG.md.

#ifndef BK_BOOKIE_BOOKIE_CONFIG_H_
#define BK_BOOKIE_BOOKIE_CONFIG_H_

#include "bookie/daemon/daemon_options.h"
#include "common/config_table.h"

namespace bk::bookie {

// Built on first use, never destroyed.
const ConfigTable<DaemonOptions>& BookieConfigTable();
// BookieConfigTable().schema().
const ConfigSchema& BookieConfigSchema();

}  // namespace bk::bookie

#endif  // BK_BOOKIE_BOOKIE_CONFIG_H_
