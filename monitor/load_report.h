// LoadReport: one published snapshot of the bookie's load, averaged over the
// monitor's sliding window. A plain value: copy it freely.
//
// Every figure is -1 when it is unknown: before the window is full, when the
// monitor is disabled, or when its source could not be read over the whole
// window. A figure is never 0 for "unknown" (DESIGN.md, GetBookieInfo).

#ifndef BK_MONITOR_LOAD_REPORT_H_
#define BK_MONITOR_LOAD_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace bk::monitor {

// Where a utilisation figure came from.
enum class UtilSource {
  kUnknown,      // no source was usable; the figure is -1
  kBlockDevice,  // io_ticks of the block devices that hold the dirs
  kOwnBusyTime,  // the bookie's own write + sync time over wall time
};

// "unknown", "block_device", "own_busy_time".
const char* UtilSourceName(UtilSource source);

// Utilisation of one physical block device over the window, 0..100, or -1
// when its counter wrapped or it vanished from /proc/diskstats.
struct DeviceUtil {
  std::string name;  // kernel name, as in /proc/diskstats ("sda", "nvme0n1")
  double util = -1;
  // Bytes every writer on the device wrote per second (sectors written).
  double write_bytes_per_second = -1;

  friend bool operator==(const DeviceUtil&, const DeviceUtil&) = default;
};

// The IO figures of one group of dirs (journal or ledger).
struct IoUtil {
  // Mean utilisation over the group's distinct devices (or the busy share),
  // 0..100.
  double util = -1;
  // Highest utilisation of any one device of the group (equals util for the
  // busy share).
  double util_max = -1;
  UtilSource source = UtilSource::kUnknown;
  // Bytes every writer on the group's devices wrote per second, this bookie
  // and any other (bookies sharing the disk): the sum over its devices, -1
  // unless every one of them was read over the whole window.
  double device_write_bytes_per_second = -1;
  // Every distinct device of the group, even when the figure fell back to
  // the busy share. Empty when the dirs are on no block device.
  std::vector<DeviceUtil> devices;
};

struct LoadReport {
  IoUtil journal_io;  // journal_io_util, journal_io_util_max
  IoUtil ledger_io;   // ledger_io_util, ledger_io_util_max

  // Busy share of the CPUs the process may run on (Cpus_allowed_list),
  // 0..100.
  double cpu_used_rate = -1;
  // This process's user + system time as a share of those CPUs, 0..100.
  double process_cpu_used_rate = -1;

  // Bytes the bookie wrote per second over the window.
  double write_bytes_per_second = -1;

  // Free (available to the bookie) and total bytes of the filesystems that
  // hold the ledger dirs, each filesystem counted once; latest sample.
  int64_t free_disk_bytes = -1;
  int64_t total_disk_bytes = -1;

  // Wall time the figures were averaged over, in milliseconds.
  int64_t window_ms = -1;
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_LOAD_REPORT_H_
