// RunCpu: where a write run's CPU went, for issue 22's ratio to the echo
// ceiling. When both runs keep the machine's cores busy, entries/s divided
// by the ceiling's entries/s is the ceiling's CPU per entry divided by the
// run's, so the split below says which side's work per entry holds the
// ratio down:
//
//  - this process: the client library and the load (/proc/self/stat);
//  - the bookies: the process_cpu_seconds_total of each registered bookie's
//    /metrics (bookie/daemon/process_collector.h), so remote bookies count
//    too;
//  - the machine: every allowed CPU's busy time (/proc/stat), so what the
//    rest of the machine (ZooKeeper, other users) took is the remainder.
//
// Threads: plain functions, blocking on the scrapes they make.

#ifndef BK_TOOLS_BKBENCH_RUN_CPU_H_
#define BK_TOOLS_BKBENCH_RUN_CPU_H_

#include <string>
#include <vector>

#include "tools/bkbench/cpu_account.h"

namespace bk::bkbench {

struct RunCpuSnapshot {
  CpuSnapshot local;           // this process and the machine
  double bookies_s = 0;        // summed over the bookies that answered
  std::vector<bool> answered;  // per bookie, in the order given
};

// Reads the counters now; `bookie_http` are the bookies' "host:port".
RunCpuSnapshot TakeRunCpu(const std::vector<std::string>& bookie_http);

struct RunCpu {
  double wall_s = -1;
  double client_s = -1;   // this process
  double bookies_s = -1;  // -1 unless every bookie answered at both ends
  double machine_s = -1;  // busy time of the allowed CPUs
  int cpus = 0;
  int bookies = 0;  // that answered at both ends
  // Microseconds of CPU per entry; -1 where unknown.
  double ClientUsPerEntry(double entries) const;
  double BookiesUsPerEntry(double entries) const;
  double MachineUsPerEntry(double entries) const;
  // Busy share of the allowed CPUs over the run, in percent.
  double MachineBusyPercent() const;
};
RunCpu RunCpuBetween(const RunCpuSnapshot& a, const RunCpuSnapshot& b);

// "CPU per entry: client 9.8 us, bookies 12.1 us (4.0 us per replica-add),
// machine 23.0 us, 2 CPUs 97 % busy; the echo ceiling 11.7 us"
std::string DescribeRunCpu(const RunCpu& cpu, double entries, int replicas,
                           double echo_us_per_entry);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_RUN_CPU_H_
