// VmCosts: what this machine charges for three things an add path does
// besides computing: entering the kernel, writing to a page for the first
// time, and waking another thread. On a virtual machine each can cost many
// times its price on bare metal, and together they set how far a bookie's
// add path can come to the bare RPC echo (bookie_add_bench). Measured in
// about a second and printed beside the benchmark's figures, so that runs
// on different days, or machines, can be read side by side.

#ifndef BK_BENCH_VM_COSTS_H_
#define BK_BENCH_VM_COSTS_H_

#include <string>

namespace bk::bench {

struct VmCosts {
  double syscall_us = 0;      // one getppid system call
  double first_touch_us = 0;  // first write to a fresh anonymous 4 KiB page
  double warm_touch_us = 0;   // a second write to the same page
  double wake_us = 0;         // a release to the sleeping waiter running
};

VmCosts MeasureVmCosts();

// One line: "machine: a system call 1.14 us, ...".
std::string FormatVmCosts(const VmCosts& c);

}  // namespace bk::bench

#endif  // BK_BENCH_VM_COSTS_H_
