// CopyFragment: the entries a lost bookie held in one segment, read from
// the surviving replicas of their write sets (digests verified) and added
// to a new bookie with RECOVERY_ADD. Part of LedgerRepair
// (ledger_repair.h). Blocking.
//
// The lost slot's entries fall into runs, one per write quorum that holds
// the slot: the entries e with e mod E = r. Each run is cut into chunks of
// batch_size entries, and each chunk streamed from one surviving replica
// of its write quorum (a strided ReadEntries; fragment_chunk.h), the
// replicas taken in turn so that the reads spread over them; every entry
// is added to the new bookie as soon as it arrives. Up to
// chunks_in_flight chunks run at once, so at most chunks_in_flight *
// batch_size entries are held in memory or await the new bookie's answer.

#ifndef BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_
#define BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/internal/client_context.h"
#include "client/internal/fragment_chunk.h"
#include "proto/entry_format.h"

namespace bk::client::internal {

struct FragmentCopy {
  uint64_t ledger_id = 0;
  entry::DigestType digest = entry::DigestType::kCrc32c;
  // The segment's, as stored, with "" for a replica not to be read.
  std::vector<std::string> ensemble;
  int write_quorum = 1;
  int slot = 0;             // the lost bookie's slot in the ensemble
  int64_t first_entry = 0;  // the segment's range [first, last]
  int64_t last_entry = -1;
  std::string to;  // the new bookie
  std::string master_key;
  int batch_size = 100;      // entries per chunk
  int chunks_in_flight = 4;  // chunks read and written at once
  // Called before each chunk starts with the bytes it is expected to copy
  // (the average entry so far times its entries) plus what earlier chunks
  // copied beyond their estimates, and once more at the end; may block (a
  // rate limiter). May be null.
  std::function<void(int64_t)> throttle;
};

struct CopyStats {
  int64_t entries = 0;
  int64_t bytes = 0;
};

// The chunks that copy every entry of [first_entry, last_entry] whose
// write set holds `slot`, in the order they are started.
std::vector<ChunkPlan> PlanChunks(const FragmentCopy& copy);

// Copies every entry of [first_entry, last_entry] whose write set holds
// `slot` to `to`. Errors name the entry; nothing is partial in the
// metadata (the caller swaps only after OK).
absl::StatusOr<CopyStats> CopyFragment(ClientContext* ctx,
                                       const FragmentCopy& copy);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_FRAGMENT_COPY_H_
