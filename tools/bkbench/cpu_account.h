// CpuAccount: the CPU time a set of processes and the whole machine spent
// between two snapshots, for bkbench repair's bound on the copy.
//
// A copy that needs C CPU seconds of the processes under test (this one and
// the cluster's) cannot finish in less than C / A seconds when the machine
// leaves it A cores: A is the allowed CPUs minus what everything else on
// the machine (other engineers' builds) kept busy over the same wall time.
// Sources: /proc/<pid>/stat (utime + stime) per process, /proc/self/stat
// for this one, /proc/stat over the CPUs this process may run on; all in
// clock ticks (USER_HZ, 10 ms here), so a figure is good to a tick per
// process.

#ifndef BK_TOOLS_BKBENCH_CPU_ACCOUNT_H_
#define BK_TOOLS_BKBENCH_CPU_ACCOUNT_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace bk::bkbench {

struct CpuSnapshot {
  absl::Time at;
  int64_t self_ticks = -1;
  std::vector<pid_t> pids;
  std::vector<int64_t> pid_ticks;  // -1: the process was gone
  int64_t machine_busy_ticks = -1;
  int64_t machine_total_ticks = -1;
  int cpus = 0;  // allowed CPUs summed in the machine figures
};

// Reads the counters now (`proc_root` is "/proc" outside tests).
CpuSnapshot TakeCpuSnapshot(const std::vector<pid_t>& pids,
                            const std::string& proc_root = "/proc");

// Seconds between two snapshots of the same pids; -1 where unknown. A
// process gone at either end (a killed bookie) counts nothing.
struct CpuUse {
  double wall_s = -1;
  double self_s = -1;             // this process
  double others_s = -1;           // the pids
  std::vector<double> per_pid_s;  // each pid's, in the snapshot's order
  double machine_s = -1;          // every allowed CPU's busy time
  int cpus = 0;
  double ours() const { return self_s + others_s; }
  // Cores the machine's other users left free on average.
  double cores_left() const {
    return wall_s > 0 ? cpus - (machine_s - ours()) / wall_s : -1;
  }
};
CpuUse CpuBetween(const CpuSnapshot& a, const CpuSnapshot& b);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_CPU_ACCOUNT_H_
