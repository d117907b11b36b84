// RunDisk: what a write run asked of the journal's disk, to say beside the
// echo ceiling (which writes nothing) whether the run was held by the disk
// as well as by the CPU: bytes every writer wrote to the disks behind the
// journal directory (a local cluster's bookies, their entry logs and
// indexes, anything else on the device), the disks' busy share, and the
// share of wall time some task waited for I/O (PSI io "some").
//
// Sources: /proc/diskstats (monitor/diskstats.h), the directory's disks as
// sysfs resolves them (monitor/block_device.h), /proc/pressure/io. A
// figure the machine does not offer is -1.
//
// Threads: plain functions.

#ifndef BK_TOOLS_BKBENCH_RUN_DISK_H_
#define BK_TOOLS_BKBENCH_RUN_DISK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "monitor/diskstats.h"

namespace bk::bkbench {

struct RunDiskSnapshot {
  absl::Time at;
  monitor::DiskCounterMap disks;  // empty when /proc/diskstats is unreadable
  int64_t io_some_us = -1;
};

// Reads the counters now (`proc_root` is "/proc" outside tests).
RunDiskSnapshot TakeRunDisk(const std::string& proc_root = "/proc");

struct RunDisk {
  std::vector<std::string> disks;  // those measured
  double written_mb_per_s = -1;    // summed over `disks`
  double busy_pct = -1;            // the busiest of `disks`
  double io_stall_pct = -1;        // PSI io "some" over the wall time
};

// Between two snapshots, over the named disks (those missing from either
// snapshot are left out).
RunDisk RunDiskBetween(const RunDiskSnapshot& a, const RunDiskSnapshot& b,
                       const std::vector<std::string>& disks);

// "journal disk vda: 590 MB/s written (7.0 KB per entry), 77% busy; some
// task waited for I/O 50% of the time"
std::string DescribeRunDisk(const RunDisk& disk, double entries_per_second);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_RUN_DISK_H_
