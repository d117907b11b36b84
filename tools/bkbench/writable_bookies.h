// Before a run: can the cluster take the run's ledgers? A bookie past its
// diskUsageThreshold (or forced read-only) refuses every add with EREADONLY,
// and a run on a cluster with fewer writable bookies than its ensemble
// fails with placement's "not enough bookies" and nothing else. This check
// says instead which bookies are read-only and why, in the bookies' own
// words: the registration's read-only flag, the reason the bookie's admin
// API gives (GET /api/v1/bookie/state, readOnlyReason) and its disk usage
// from GetBookieInfo (client::BookieAdmin, with the client's TLS settings).
//
// Threads: plain functions, each blocking on the calls it makes.

#ifndef BK_TOOLS_BKBENCH_WRITABLE_BOOKIES_H_
#define BK_TOOLS_BKBENCH_WRITABLE_BOOKIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/client_options.h"

namespace bk::bkbench {

// One registered bookie as the check saw it.
struct BookieWriteState {
  std::string id;
  bool read_only = false;  // registered read-only, or says it is
  // Why, as the bookie's admin API says it ("" when it could not be
  // asked); e.g. "EREADONLY: bookie is read-only: disk usage 97.1% >
  // diskUsageThreshold 95.0% ...", or "... forceReadOnlyBookie is set".
  std::string reason;
  int64_t total_disk_bytes = -1;  // GetBookieInfo; -1 unknown
  int64_t free_disk_bytes = -1;
};

// One line about a read-only bookie: "bookie-2 is read-only: disk usage
// 97.1% > diskUsageThreshold 95.0% (disk 97.1% used, 2.9 GiB free of
// 100.0 GiB)". Where the bookie gave no reason, its disk figures alone.
std::string DescribeReadOnly(const BookieWriteState& b);

// OK when at least `ensemble` of `bookies` are writable; otherwise
// kFailedPrecondition naming how many are registered and writable, what
// the run needs, and a line per read-only bookie (DescribeReadOnly).
absl::Status CheckEnoughWritable(const std::vector<BookieWriteState>& bookies,
                                 int ensemble);

// The bookies registered in the metadata store of
// `client.metadata_service_uri` (opened with the client's ZooKeeper
// credentials), each read-only one asked why (admin API, 2 s) and for its
// disk figures (GetBookieInfo, 5 s). A bookie that does not answer keeps
// its registration's flag and an empty reason.
absl::StatusOr<std::vector<BookieWriteState>> ReadBookieStates(
    const client::ClientOptions& client);

// ReadBookieStates then CheckEnoughWritable: what a command calls before
// it creates ledgers of `ensemble` bookies. A read-only bookie among
// enough writable ones is not an error; its line goes to `warnings` when
// not null.
absl::Status CheckWritableBookies(const client::ClientOptions& client,
                                  int ensemble,
                                  std::vector<std::string>* warnings);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_WRITABLE_BOOKIES_H_
