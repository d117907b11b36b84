// ComputeLoad: turns a full window of Readings into a LoadReport.
//
// Every rate is (newest - oldest) over the window's wall time, which equals
// the time-weighted mean of the per-interval rates. A counter that is missing
// from any reading of the window, or that goes backwards between two
// consecutive readings (wrap, device replaced, counter reset), makes the
// figures derived from it -1 until that reading leaves the window.
//
// IO utilisation of a group (journal or ledger dirs):
//   device util = delta io_ticks (ms) * 100 / delta wall ms, clamped 0..100;
//   group util  = mean over the group's devices whose util is known, and
//                 util_max = the largest of them, source kBlockDevice;
//   otherwise (no device, all unknown, or the group marked shared):
//                 own busy nanos * 100 / wall nanos, clamped, source
//                 kOwnBusyTime; and if that is unknown too, -1, kUnknown.
//   device write rate = delta sectors written x 512 / wall seconds, per
//                 device and summed over the group's devices (every writer
//                 on them, shared or not); -1 unless known for all of them.

#ifndef BK_MONITOR_LOAD_CALCULATOR_H_
#define BK_MONITOR_LOAD_CALCULATOR_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "monitor/load_report.h"
#include "monitor/reading.h"

namespace bk::monitor {

// The physical disks behind one group of dirs.
struct DeviceGroup {
  std::vector<std::string> disks;  // distinct kernel names
  bool shared = false;             // use the own busy share instead
};

// REQUIRES: window.size() >= 2, now_nanos strictly increasing.
LoadReport ComputeLoad(std::span<const Reading> window,
                       const DeviceGroup& journal, const DeviceGroup& ledger);

}  // namespace bk::monitor

#endif  // BK_MONITOR_LOAD_CALCULATOR_H_
