// ProcessStats: what this process uses, as Prometheus' standard process
// collector names it (process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_threads, process_open_fds,
// process_max_fds, process_start_time_seconds), read from procfs at call
// time.
//
// Sources: /proc/self/stat (utime + stime, num_threads, starttime, vsize,
// rss), btime in /proc/stat (boot time, to make starttime absolute), the
// entries of /proc/self/fd, and the soft "Max open files" of
// /proc/self/limits. A figure that cannot be read is -1, never 0, so a
// scrape tells "unknown" from "none".

#ifndef BK_MONITOR_PROCESS_STATS_H_
#define BK_MONITOR_PROCESS_STATS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::monitor {

struct ProcessStats {
  double cpu_seconds = -1;  // user + system
  double resident_bytes = -1;
  double virtual_bytes = -1;
  double threads = -1;
  double open_fds = -1;
  double max_fds = -1;             // -1 also when unlimited
  double start_time_seconds = -1;  // since the epoch
};

// The fields of /proc/<pid>/stat text that ProcessStats holds, in the
// kernel's units: clock ticks for the times, pages for rss, bytes for vsize.
struct ProcessStatFields {
  uint64_t cpu_ticks = 0;    // utime (14) + stime (15)
  uint64_t threads = 0;      // num_threads (20)
  uint64_t start_ticks = 0;  // starttime (22), since boot
  uint64_t vsize_bytes = 0;  // vsize (23)
  uint64_t rss_pages = 0;    // rss (24)
};

// Parses /proc/<pid>/stat text; the command name may hold spaces and
// parentheses. kInvalidArgument when malformed.
absl::StatusOr<ProcessStatFields> ParseProcessStatFields(
    absl::string_view pid_stat_text);

// The "btime" line of /proc/stat: boot time in seconds since the epoch.
// kNotFound when missing.
absl::StatusOr<uint64_t> ParseBootTime(absl::string_view stat_text);

// The soft limit of "Max open files" in /proc/<pid>/limits text; -1 when it
// is "unlimited". kNotFound when the line is missing.
absl::StatusOr<int64_t> ParseMaxOpenFiles(absl::string_view limits_text);

// Reads this process's figures under `proc_root` ("/proc" outside tests).
// Never fails: what cannot be read stays -1.
ProcessStats ReadProcessStats(const std::string& proc_root = "/proc");

}  // namespace bk::monitor

#endif  // BK_MONITOR_PROCESS_STATS_H_
