// LedgerRepair: moves a ledger's fragments off one bookie, for autorecovery
// and the operator's tools (BookKeeper's LedgerFragmentReplicator). Not the
// data path of a broker.
//
//   bk::client::LedgerRepair repair(client.get());
//   auto r = repair.ReplaceBookie(ledger_id, password, "bk3", {});
//
// For each segment (fragment) whose ensemble holds the bookie, a
// replacement is chosen by the client's placement policy (rack-aware,
// load-weighted, excluding the segment's own bookies), the
// segment's entries that the bookie held are streamed from the surviving
// replicas of their write sets (digests verified) and added to the
// replacement with RECOVERY_ADD, a few chunks at a time
// (internal/fragment_copy.h), and only then is the bookie swapped for
// the replacement in the segment, by compare-and-set on the metadata. A
// copy cut short (crash, error) leaves the metadata untouched; running it
// again copies again (re-adding an entry is harmless) and swaps.
//
// Only immutable fragments are moved: every segment of a CLOSED ledger, and
// the non-last segments of an OPEN or IN_RECOVERY one (whose last segment
// may still grow; recover the ledger first, Client::OpenLedger with
// recover, to move it). RepairResult::skipped_last_segment says when the
// last segment was left for that reason.
//
// The master key: adds need the ledger's master key, and the metadata holds
// only a hash of it, so the caller supplies the ledger's password (checked
// against the hash: kPermissionDenied when it does not match).
//
// Threads: any thread but the client's completion thread; blocking.
// Lifetime: must not outlive its Client.

#ifndef BK_CLIENT_LEDGER_REPAIR_H_
#define BK_CLIENT_LEDGER_REPAIR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/client.h"

namespace bk::client {

struct RepairOptions {
  // Entries per chunk (rereplicationEntryBatchSize): a chunk is streamed
  // from one surviving replica and added to the new bookie as it arrives.
  int batch_size = 100;
  // Chunks of one fragment read and written at once; at most
  // chunks_in_flight * batch_size entries are held or await the new
  // bookie's answer.
  int chunks_in_flight = 4;
  // Called before each chunk starts with the bytes it is expected to copy
  // (plus what earlier chunks copied beyond their estimates) and once more
  // at the end of each fragment; it may block to hold repair under a rate
  // (the caller's throttle). Null: unthrottled.
  std::function<void(int64_t bytes)> throttle;
  // Bookies never chosen as replacements (besides the ledger's own).
  std::vector<std::string> excluded;
};

struct FragmentMove {
  int segment = -1;          // index in the metadata's segments
  int64_t first_entry = -1;  // the segment's entries [first, last]
  int64_t last_entry = -1;
  std::string from;
  std::string to;
  int64_t entries = 0;  // copied to `to`
  int64_t bytes = 0;
};

struct RepairResult {
  std::vector<FragmentMove> moved;
  // The bookie is in the last segment of a ledger that is not CLOSED.
  bool skipped_last_segment = false;
  // The bookie is in no segment (any more): nothing to do.
  bool absent = false;
};

class LedgerRepair {
 public:
  // REQUIRES: client outlives this object.
  explicit LedgerRepair(Client* client) : client_(client) {}

  // Moves every immutable fragment of ledger `ledger_id` off `bookie`.
  // kNotFound when the ledger is gone; kPermissionDenied for a wrong
  // password; kUnavailable when no replacement can be found or an entry
  // cannot be read from any surviving replica (nothing swapped for that
  // segment); kAborted when another client changed the segment meanwhile.
  absl::StatusOr<RepairResult> ReplaceBookie(int64_t ledger_id,
                                             const std::string& password,
                                             const std::string& bookie,
                                             const RepairOptions& options);

 private:
  Client* const client_;
};

}  // namespace bk::client

#endif  // BK_CLIENT_LEDGER_REPAIR_H_
