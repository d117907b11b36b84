// The bookie's configuration keys: BookKeeper's names where BookKeeper has
// the key, each with its default, unit and one-line meaning. This schema is
// the single source for `bookie --help`, `--print-config`, and the generated
// deploy/config/bookie.conf.

#ifndef BK_BOOKIE_BOOKIE_CONFIG_H_
#define BK_BOOKIE_BOOKIE_CONFIG_H_

#include "common/config.h"

namespace bk::bookie {

// The schema; built once, never destroyed.
const ConfigSchema& BookieConfigSchema();

}  // namespace bk::bookie

#endif  // BK_BOOKIE_BOOKIE_CONFIG_H_
