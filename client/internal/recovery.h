// Ledger recovery, as BookKeeper does it, for a reader that opens an OPEN
// ledger with recover = true:
//
//  1. Mark the ledger IN_RECOVERY in the metadata store (compare-and-set),
//     so that the writer's next metadata write fails and its watch stops
//     it.
//  2. Fence the last segment's ensemble: ReadEntry(entry -1, FENCE_LEDGER)
//     to every bookie. Each answer is durable before it is sent, and after
//     it the bookie refuses the writer's adds (EFENCED). Done once every
//     write quorum has fewer than AQ bookies that did not answer (then no
//     entry the writer could still get confirmed is beyond our reach); the
//     LAC is the highest any answer carries (or the last segment's start
//     - 1).
//  3. From LAC + 1 on, read each entry with the recovery rule (one replica
//     at a time; "absent" once more than WQ - AQ replicas say they lack it)
//     and add it again with RECOVERY_ADD to every bookie of its write set
//     and a bookie that refuses it (dead, read-only) is replaced by one the
//     placement policy chooses, the ledger going on from that entry on the
//     new ensemble (recovery_add.h). An entry that reached even one bookie
//     may thus be recovered; one that reached none is not.
//  4. Close the ledger at the last entry recovered (CLOSED, last_entry_id,
//     length from that entry's header), with the new segments of step 3 in
//     the same compare-and-set.
//
// A recovery that cannot finish (too few bookies answered the fence, or no
// replacement could take an entry) leaves the ledger IN_RECOVERY with its
// segments unchanged and returns the error; running it again continues.
// Fencing keeps BookKeeper's quorum coverage rule: when AQ or more bookies
// of some write quorum do not answer at all, an entry acknowledged by them
// alone cannot be ruled out, and recovery refuses rather than close the
// ledger short of it.
// Blocking; runs on the caller's thread.

#ifndef BK_CLIENT_INTERNAL_RECOVERY_H_
#define BK_CLIENT_INTERNAL_RECOVERY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "client/internal/client_context.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::client::internal {

absl::StatusOr<metadata::Versioned<proto::LedgerMetadata>> RecoverLedger(
    ClientContext* ctx, int64_t ledger_id,
    metadata::Versioned<proto::LedgerMetadata> metadata,
    const std::string& master_key);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_RECOVERY_H_
