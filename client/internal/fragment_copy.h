// CopyFragment: the entries a lost bookie held in one segment, read from
// the surviving replicas of their write sets (digests verified by the
// read) and added to a new bookie with RECOVERY_ADD, a batch at a time.
// Part of LedgerRepair (ledger_repair.h). Blocking.

#ifndef BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_
#define BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/internal/client_context.h"
#include "proto/entry_format.h"

namespace bk::client::internal {

struct FragmentCopy {
  uint64_t ledger_id = 0;
  entry::DigestType digest = entry::DigestType::kCrc32c;
  std::vector<std::string> ensemble;  // the segment's, as stored
  int write_quorum = 1;
  int slot = 0;             // the lost bookie's slot in the ensemble
  int64_t first_entry = 0;  // the segment's range [first, last]
  int64_t last_entry = -1;
  std::string to;  // the new bookie
  std::string master_key;
  int batch_size = 100;
  std::function<void(int64_t)> throttle;  // may be null
};

struct CopyStats {
  int64_t entries = 0;
  int64_t bytes = 0;
};

// Copies every entry of [first_entry, last_entry] whose write set holds
// `slot` to `to`. Errors name the entry; nothing is partial in the
// metadata (the caller swaps only after OK).
absl::StatusOr<CopyStats> CopyFragment(ClientContext* ctx,
                                       const FragmentCopy& copy);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_
