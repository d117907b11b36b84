// Builds the GetBookieInfo answer (proto/bookie.proto) from the load
// monitor's window, the store and the last disk check. Every figure that is
// unknown is -1, never 0.

#ifndef BK_BOOKIE_DAEMON_BOOKIE_INFO_H_
#define BK_BOOKIE_DAEMON_BOOKIE_INFO_H_

#include "bookie/bookie_store.h"
#include "bookie/disk_checker.h"
#include "monitor/load_report.h"
#include "proto/bookie.pb.h"

namespace bk::bookie {

struct BookieInfoInputs {
  monitor::LoadReport load;
  StoreStats store;
  DiskCheckResult disk;
  double add_latency_p99_ms = -1;
};

// Fills the fields `requested` asks for (TOTAL_DISK_CAPACITY,
// FREE_DISK_SPACE, LOAD); fields not asked for stay -1.
proto::GetBookieInfoResponse MakeBookieInfo(uint64_t requested,
                                            const BookieInfoInputs& in);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_BOOKIE_INFO_H_
