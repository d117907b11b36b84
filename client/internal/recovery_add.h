// The re-replication step of ledger recovery (recovery.h, step 3): an entry
// found beyond the LAC is added again with RECOVERY_ADD to every bookie of
// its write set. A bookie that refuses it (dead, read-only, timed out) is
// replaced, as BookKeeper's recovery does, by one the placement policy
// chooses: from that entry on the ledger continues on the new ensemble, and
// the entry is added to the replacement.
//
// The new segments are kept in memory (RecoveryEnsemble) and written to the
// metadata store only with the close, in the same compare-and-set. A
// recovery that fails half-way thus leaves the metadata as it found it
// (IN_RECOVERY, the fenced ensemble last), so running it again fences and
// reads the same bookies; the copies it made on replacements are
// unreferenced and dropped by their bookies' garbage collection once the
// ledger is deleted.

#ifndef BK_CLIENT_INTERNAL_RECOVERY_ADD_H_
#define BK_CLIENT_INTERNAL_RECOVERY_ADD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/internal/client_context.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

// The ensembles recovery writes to: the ledger's segments, plus those that
// recovery's replacements opened. Not thread-safe.
class RecoveryEnsemble {
 public:
  explicit RecoveryEnsemble(const proto::LedgerMetadata& md) : md_(md) {}

  // Adds `body` (entry `entry_id`) to its write set in the current
  // ensemble; bookies that refuse are replaced (a new segment from
  // `entry_id`) and the entry added to the replacements, a few rounds at
  // most. OK once every bookie of the write set holds it, or, when the
  // placement policy has no replacement left, once at least AQ do.
  absl::Status Add(ClientContext* ctx, int64_t ledger_id, int64_t entry_id,
                   const std::string& body, const std::string& master_key);

  // The segments with recovery's replacements, for the closing write.
  const proto::LedgerMetadata& metadata() const { return md_; }
  // Bookies replaced so far (for the log).
  const std::vector<std::string>& replaced() const { return replaced_; }

 private:
  // Replaces the bookies of `slots` of the last segment, from `entry_id`.
  absl::Status Replace(ClientContext* ctx, int64_t entry_id,
                       const std::vector<int>& slots);

  proto::LedgerMetadata md_;
  std::vector<std::string> replaced_;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_RECOVERY_ADD_H_
