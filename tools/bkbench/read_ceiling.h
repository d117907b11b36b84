// The bare gRPC stream ceiling of a catch-up read (issue 22, target 5):
// the entries a late reader's backlog held, streamed again as stored with
// plain ReadEntries calls (client::BookieAdmin::StreamEntries: no digest
// check, no reordering, no window; packed as the client's range reads are,
// kRangeReadEntriesPerMessage entries per message), one stream at a time: from
// one bookie when E == WQ, else one strided stream per write set (stride E),
// each from the write set's first bookie. A reader's backlog rate divided by
// this is the share of the stream it reached.
#ifndef BK_TOOLS_BKBENCH_READ_CEILING_H_
#define BK_TOOLS_BKBENCH_READ_CEILING_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "client/client_options.h"

namespace bk::bkbench {

struct ReadCeiling {
  int64_t entries = 0;  // streamed
  int64_t bytes = 0;    // entry bodies as stored (header + digest + payload)
  double seconds = 0;
  double entries_per_s = 0;
};

// Streams entries 0..count-1 of `ledger_id` as above, reading the ledger's
// metadata and the bookies' endpoints from client.metadata_service_uri
// (with the client's ZooKeeper credentials) and reaching the bookies with
// its TLS settings. Fails if any entry is missing from its stream.
absl::StatusOr<ReadCeiling> MeasureReadCeiling(
    const client::ClientOptions& client, int64_t ledger_id, int64_t count);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_READ_CEILING_H_
