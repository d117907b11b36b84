// ReadOp: reads one entry from the replicas of its write set.
//
// The replicas are asked in the order the placement policy gives
// (ClusterView::ReadOrder). The next replica is asked when one fails, when
// one serves a damaged entry (digest mismatch: kDataLoss) and, for plain
// reads, when none has answered within speculativeReadTimeout. The first
// valid entry wins; later answers are dropped.
//
// Recovery reads (ReadOpOptions::max_missing >= 0) ask one replica at a
// time and give up with kNotFound as soon as more than max_missing replicas
// say the entry does not exist (WQ - AQ: then it cannot have been
// acknowledged), as BookKeeper's recovery does.
//
// Outcome when no replica served the entry: kNotFound if every replica
// said it has no such entry, else kDataLoss if one served it damaged, else
// the last transport or bookie error (usually kUnavailable). Errors name the
// ledger, the entry and the bookies tried.
//
// Threads: `done` runs once, on a gRPC or timer thread, without locks
// held; it must not block.

#ifndef BK_CLIENT_INTERNAL_READ_OP_H_
#define BK_CLIENT_INTERNAL_READ_OP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "client/internal/client_context.h"
#include "proto/entry_format.h"

namespace bk::client::internal {

struct ReadResult {
  int64_t entry_id = -1;
  std::string body;  // the packaged entry as served (digest verified)
  entry::EntryHeader header;
  std::string payload;
};

struct ReadOpOptions {
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  entry::DigestType digest = entry::DigestType::kCrc32c;
  std::vector<std::string> ensemble;  // the entry's segment
  int write_quorum = 1;
  // < 0: plain read (speculative). >= 0: recovery read, see above.
  int max_missing = -1;
};

using ReadDone = absl::AnyInvocable<void(absl::StatusOr<ReadResult>)>;

// Starts the read. `ctx` must outlive it (the Client outlives every op
// through its shutdown order).
void StartRead(ClientContext* ctx, ReadOpOptions options, ReadDone done);

// Blocking form. REQUIRES: not on a gRPC or client thread.
absl::StatusOr<ReadResult> ReadBlocking(ClientContext* ctx,
                                        ReadOpOptions options);

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_READ_OP_H_
