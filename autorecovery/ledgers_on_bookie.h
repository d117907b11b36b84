// LedgersOnBookie: every ledger whose metadata names a bookie, for a
// decommission (what must be moved off it, and whether anything is left).

#ifndef BK_AUTORECOVERY_LEDGERS_ON_BOOKIE_H_
#define BK_AUTORECOVERY_LEDGERS_ON_BOOKIE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

// Ascending ids. Syncs the store first (a ZooKeeper session may lag the
// leader); reads every ledger's metadata once. Ledgers deleted meanwhile are
// skipped.
absl::StatusOr<std::vector<int64_t>> LedgersOnBookie(
    metadata::MetadataStore* store, const std::string& bookie);

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_LEDGERS_ON_BOOKIE_H_
