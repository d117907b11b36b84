#include "bench/vm_costs.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <semaphore>
#include <thread>

#include "absl/strings/str_format.h"

namespace bk::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point t0, double per) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
         per;
}

double SyscallMicros() {
  constexpr int kCalls = 200000;
  const auto t0 = Clock::now();
  for (int i = 0; i < kCalls; ++i) (void)::syscall(SYS_getppid);
  return MicrosSince(t0, kCalls);
}

// Writes one byte per page of a fresh 64 MiB mapping, twice.
void TouchMicros(double* first, double* warm) {
  constexpr size_t kBytes = size_t{64} << 20;
  constexpr size_t kPage = 4096;
  void* m = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;
  (void)::madvise(m, kBytes, MADV_NOHUGEPAGE);  // 4 KiB pages, as the heap
  volatile char* p = static_cast<volatile char*>(m);
  for (double* out : {first, warm}) {
    const auto t0 = Clock::now();
    for (size_t i = 0; i < kBytes; i += kPage) p[i] = static_cast<char>(i);
    *out = MicrosSince(t0, kBytes / kPage);
  }
  ::munmap(m, kBytes);
}

// Two threads hand a token back and forth; each hand-off wakes the other.
double WakeMicros() {
  constexpr int kRounds = 20000;
  std::binary_semaphore ping(0), pong(0);
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) {
      ping.acquire();
      pong.release();
    }
  });
  const auto t0 = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    ping.release();
    pong.acquire();
  }
  const double us = MicrosSince(t0, 2.0 * kRounds);
  other.join();
  return us;
}

}  // namespace

VmCosts MeasureVmCosts() {
  VmCosts c;
  c.syscall_us = SyscallMicros();
  TouchMicros(&c.first_touch_us, &c.warm_touch_us);
  c.wake_us = WakeMicros();
  return c;
}

std::string FormatVmCosts(const VmCosts& c) {
  return absl::StrFormat(
      "machine: a system call %.2f us, a page's first write %.2f us (then "
      "%.3f us), a thread wake-up %.1f us",
      c.syscall_us, c.first_touch_us, c.warm_touch_us, c.wake_us);
}

}  // namespace bk::bench
