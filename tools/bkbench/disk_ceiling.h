// MeasureDisk: this disk's sequential write and read rates in a directory,
// the ceiling bkbench repair prints beside the copy.
//
// What is measured: a new file of `mb` MiB written with 1 MiB pwrites and
// one fdatasync, then read back with 1 MiB reads, both with O_DIRECT, so
// neither pass goes through this machine's page cache (the read comes from
// the device, the write counts only once it is on the device). On a
// virtual disk the host may still cache underneath; the guest cannot see
// that. Where the filesystem refuses O_DIRECT (tmpfs), the passes are
// buffered (the write still ends with fdatasync, the read follows
// POSIX_FADV_DONTNEED) and `direct` is false: the read may then come from
// the page cache and overstate the device.
//
// Each pass runs `rounds` times; the medians make the ceiling, the spread
// is printed beside it.

#ifndef BK_TOOLS_BKBENCH_DISK_CEILING_H_
#define BK_TOOLS_BKBENCH_DISK_CEILING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::bkbench {

struct DiskRates {
  bool direct = false;            // O_DIRECT both ways
  std::vector<double> write_mbs;  // MiB/s, one per round
  std::vector<double> read_mbs;

  double write_median() const;
  double read_median() const;
  // A copy reads and writes every byte on the one disk: 1 / (1/r + 1/w) of
  // the medians.
  double copy_ceiling() const;
  // "w 410 (380-455) / r 900 (850-910) MB/s, O_DIRECT"
  std::string ToString() const;
};

// REQUIRES: mb >= 1, rounds >= 1. Leaves no file behind.
absl::StatusOr<DiskRates> MeasureDisk(const std::string& dir, int mb,
                                      int rounds);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_DISK_CEILING_H_
