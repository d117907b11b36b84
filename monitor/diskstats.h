// /proc/diskstats: the io_ticks and sectors-written counters of every block
// device.
//
// One line per device (Documentation/admin-guide/iostats.rst):
//
//   major minor name  f1 f2 f3 f4 f5 f6 f7      f8 f9 f10 [f11 .. f17]
//    254      0 vda   30719 7071 ... 2825048 ... 0 6392 ...
//                                    ^^^^^^^ f7 = sectors written
//                                                   ^^^^ f10 = io_ticks
//
// io_ticks is the number of milliseconds the device had at least one request
// in flight, so delta io_ticks / delta wall ms is its utilisation. Sectors
// are 512 bytes whatever the device's block size, so delta sectors x 512 /
// delta wall seconds is the bytes every writer on the device wrote per
// second. Kernels before 4.18 print 11 counters, 4.18 adds 4 (discard), 5.5
// adds 2 (flush); f7 and f10 are in the same place in all of them.

#ifndef BK_MONITOR_DISKSTATS_H_
#define BK_MONITOR_DISKSTATS_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::monitor {

// The counters of one device the monitor reads.
struct DiskCounters {
  uint64_t io_ticks = 0;         // milliseconds with a request in flight
  uint64_t sectors_written = 0;  // 512-byte sectors

  friend bool operator==(const DiskCounters&, const DiskCounters&) = default;
};

inline constexpr int64_t kDiskstatsSectorBytes = 512;

// Kernel device name -> its counters.
using DiskCounterMap = absl::flat_hash_map<std::string, DiskCounters>;

// Parses the text of /proc/diskstats. kInvalidArgument naming the line when
// a line has fewer than 10 counters or a non-numeric one.
absl::StatusOr<DiskCounterMap> ParseDiskstats(absl::string_view text);

// Reads and parses <proc_root>/diskstats.
absl::StatusOr<DiskCounterMap> ReadDiskstats(const std::string& proc_root);

}  // namespace bk::monitor

#endif  // BK_MONITOR_DISKSTATS_H_
