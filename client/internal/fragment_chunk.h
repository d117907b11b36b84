// CopyChunk: one run of a fragment's entries, for CopyFragment
// (fragment_copy.h). The entries first, first + stride, ... (count of them)
// are streamed from one surviving replica (ReadEntries with a stride: the
// entries of one write quorum, several per stream message), each entry's
// digest is checked as it arrives and the entry is added at once to the
// new bookie with RECOVERY_ADD, its bytes handed to the add as read (no
// copy), so reading and writing overlap. Entries the stream did not
// deliver (the replica lacks one, failed, refused the stream, served a bad
// digest, or does not know strides) are then read one by one from any
// replica of their write set (ReadOp) and added the same way.
//
// Asynchronous: `done` runs once, on a gRPC or timer thread, when every
// read and add of the chunk has answered. It must not block.

#ifndef BK_CLIENT_INTERNAL_FRAGMENT_CHUNK_H_
#define BK_CLIENT_INTERNAL_FRAGMENT_CHUNK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "client/internal/bookie_client.h"
#include "client/internal/client_context.h"
#include "proto/entry_format.h"

namespace bk::client::internal {

// What every chunk of one fragment shares. Constant once made.
struct ChunkTarget {
  uint64_t ledger_id = 0;
  entry::DigestType digest = entry::DigestType::kCrc32c;
  std::vector<std::string> ensemble;  // "" for a replica not to be read
  int write_quorum = 1;
  std::string master_key;
  std::shared_ptr<BookieClient> to;  // the new bookie
};

struct ChunkPlan {
  int64_t first = 0;  // entry ids first + i * stride, i < count
  int64_t stride = 1;
  int count = 0;
  std::string source;  // replica streamed from; "": entry by entry only
};

struct ChunkOutcome {
  absl::Status status;  // the first error, naming the entry
  int64_t entries = 0;  // added to the new bookie
  int64_t bytes = 0;
};

// REQUIRES: ctx outlives the chunk (the Client's shutdown order).
void StartChunk(ClientContext* ctx, std::shared_ptr<const ChunkTarget> target,
                const ChunkPlan& plan,
                absl::AnyInvocable<void(ChunkOutcome)> done);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_FRAGMENT_CHUNK_H_
