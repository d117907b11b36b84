// CPU time: /proc/stat over the CPUs this process may run on, and the
// process's own time from /proc/self/stat.
//
// All counters are in clock ticks (USER_HZ), the same unit in both files, so
// the process's share of the allowed CPUs needs no sysconf().

#ifndef BK_MONITOR_CPU_STAT_H_
#define BK_MONITOR_CPU_STAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::monitor {

// Upper bound on CPU numbers accepted from a cpu list.
inline constexpr int kMaxCpus = 8192;

// Parses a kernel cpu list such as "0-3,8,10-11" into sorted CPU numbers.
// kInvalidArgument on malformed input or a CPU >= kMaxCpus.
absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view list);

// Finds the "Cpus_allowed_list:" line in the text of /proc/<pid>/status and
// parses it. kNotFound when the line is missing.
absl::StatusOr<std::vector<int>> ParseCpusAllowedList(
    absl::string_view status_text);

// Summed ticks of a set of CPUs.
struct CpuTicks {
  std::vector<int> cpus;  // the CPUs summed: allowed and present
  // user+nice+system+idle+iowait+irq+softirq+steal (guest time is already
  // inside user and nice).
  uint64_t total = 0;
  uint64_t busy = 0;  // total - idle - iowait
};

// Sums the "cpuN" lines of /proc/stat text for N in `allowed`. CPUs that
// /proc/stat does not list (offline) are left out. kNotFound when none of
// `allowed` is listed; kInvalidArgument on a malformed cpu line.
absl::StatusOr<CpuTicks> ParseProcStat(absl::string_view stat_text,
                                       const std::vector<int>& allowed);

// utime + stime (fields 14 and 15) of the text of /proc/<pid>/stat
// (process_stats.h parses it). The command name may hold spaces and
// parentheses. kInvalidArgument when malformed.
absl::StatusOr<uint64_t> ParseProcessTicks(absl::string_view pid_stat_text);

// Reads <proc_root>/self/status and <proc_root>/stat.
absl::StatusOr<CpuTicks> ReadAllowedCpuTicks(const std::string& proc_root);

// Reads <proc_root>/self/stat.
absl::StatusOr<uint64_t> ReadProcessTicks(const std::string& proc_root);

}  // namespace bk::monitor

#endif  // BK_MONITOR_CPU_STAT_H_
