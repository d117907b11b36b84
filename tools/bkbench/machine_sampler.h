// MachineSampler: the machine's own load during a run, once a second.
//
// Every bkbench scenario shares its machine: the bookies, ZooKeeper and the
// client run as processes side by side, and on a two-vCPU machine whatever
// else runs (a build) competes with them. A latency spike in a second in
// which runnable threads queued for a CPU most of the time says "the
// machine", not "the system under test"; the report prints these figures
// beside the latencies so a reader can tell the two apart.
//
// Sources: /proc/stat (busy share of the CPUs this process may use) and the
// kernel's pressure stall information, /proc/pressure/cpu and
// /proc/pressure/io ("some": the share of wall time in which at least one
// runnable task waited for a CPU, or for I/O). A figure the kernel does not
// offer (no PSI before Linux 4.20, or PSI disabled) is -1.
//
// Threads: one sampling thread between Start() and Stop(); points() is for
// after Stop().

#ifndef BK_TOOLS_BKBENCH_MACHINE_SAMPLER_H_
#define BK_TOOLS_BKBENCH_MACHINE_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bk::bkbench {

// One second of the machine; percentages of the second, -1 when unknown.
struct MachinePoint {
  double t_s = 0;             // end of the second, from the run's start
  double cpu_busy_pct = -1;   // CPU time not idle, over the allowed CPUs
  double cpu_stall_pct = -1;  // PSI cpu "some"
  double io_stall_pct = -1;   // PSI io "some"
};

// Means and maxima of a run's points (-1 when no point has the figure).
struct MachineSummary {
  double cpu_busy_mean = -1;
  double cpu_stall_mean = -1;
  double cpu_stall_max = -1;
  double io_stall_mean = -1;
};
MachineSummary Summarise(const std::vector<MachinePoint>& points);

// The "total=" (microseconds) of the "some" line of a /proc/pressure/* text;
// -1 when there is no such line.
int64_t ParsePressureSomeTotalUs(absl::string_view text);

class MachineSampler {
 public:
  // `proc_root` is "/proc" outside tests.
  explicit MachineSampler(std::string proc_root = "/proc");
  ~MachineSampler();  // Stop()
  MachineSampler(const MachineSampler&) = delete;
  MachineSampler& operator=(const MachineSampler&) = delete;

  void Start(absl::Time run_start);
  void Stop();

  // The seconds sampled; valid after Stop().
  const std::vector<MachinePoint>& points() const { return points_; }

 private:
  struct Counters {
    int64_t cpu_busy = -1, cpu_total = -1;  // clock ticks
    int64_t cpu_stall_us = -1, io_stall_us = -1;
    absl::Time at;
  };
  Counters Read() const;

  const std::string proc_root_;
  absl::Time run_start_;
  std::vector<MachinePoint> points_;  // written by the sampling thread only
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_MACHINE_SAMPLER_H_
