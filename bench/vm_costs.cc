#include "bench/vm_costs.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
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

// From a release to the waiting thread running. The releasing thread
// first spins long enough for the waiter to have stopped spinning and gone
// to sleep in the kernel, so each round is a real wake-up.
double WakeMicros() {
  constexpr int kRounds = 2000;
  constexpr auto kSleepFirst = std::chrono::microseconds(200);
  std::binary_semaphore ping(0), pong(0);
  std::atomic<int64_t> woke_ns{0};
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) {
      ping.acquire();
      woke_ns.store(Clock::now().time_since_epoch().count(),
                    std::memory_order_relaxed);
      pong.release();
    }
  });
  double total_us = 0;
  for (int i = 0; i < kRounds; ++i) {
    const auto spin_until = Clock::now() + kSleepFirst;
    while (Clock::now() < spin_until) {
    }
    const auto t0 = Clock::now();
    ping.release();
    pong.acquire();
    const Clock::time_point woke{
        Clock::duration(woke_ns.load(std::memory_order_relaxed))};
    total_us += std::chrono::duration<double, std::micro>(woke - t0).count();
  }
  other.join();
  return total_us / kRounds;
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
      "%.3f us), a sleeping thread woken to running %.1f us",
      c.syscall_us, c.first_touch_us, c.warm_touch_us, c.wake_us);
}

}  // namespace bk::bench
