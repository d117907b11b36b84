// Reading: every raw counter the monitor takes at one instant. Figures are
// differences between two readings, so a Reading holds totals, never rates.

#ifndef BK_MONITOR_READING_H_
#define BK_MONITOR_READING_H_

#include <cstdint>
#include <optional>

#include "monitor/cpu_stat.h"
#include "monitor/disk_space.h"
#include "monitor/diskstats.h"

namespace bk::monitor {

struct Reading {
  int64_t now_nanos = 0;

  // Counters of the devices the monitor watches that /proc/diskstats listed;
  // a watched device missing here had vanished. nullopt: diskstats unreadable.
  std::optional<DiskCounterMap> disks;

  // Ticks of the allowed CPUs, and of this process. nullopt: unreadable.
  std::optional<CpuTicks> cpu;
  std::optional<uint64_t> process_ticks;

  // OwnCounters totals; negative when not tracked (or no counters given).
  int64_t bytes_written = -1;
  int64_t journal_busy_nanos = -1;
  int64_t ledger_busy_nanos = -1;

  // Ledger dirs' filesystems. nullopt: a dir could not be probed.
  std::optional<DiskSpace> disk_space;
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_READING_H_
