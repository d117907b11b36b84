// BookieMonitor: what one simulated bookie would report in GetBookieInfo,
// computed the way monitor/ (BaseMetricMonitor) computes it: every sample
// interval it samples its journal device's utilisation and its own written
// bytes per second over that interval, and reports the mean of the last
// `window` samples (baseMetricMonitorMetricSlideWindowSize). Before the first
// sample the figures are unknown (-1), as a fresh bookie's are.
//
// Not thread-safe; owned by the simulator.

#ifndef BK_TOOLS_SIM_BOOKIE_MONITOR_H_
#define BK_TOOLS_SIM_BOOKIE_MONITOR_H_

#include <cstdint>
#include <deque>

#include "placement/types.h"

namespace bk::sim {

class BookieMonitor {
 public:
  // REQUIRES: window >= 1.
  BookieMonitor(int window, int64_t total_disk_bytes, int64_t free_disk_bytes);

  // Accounts one tick: the device was `utilisation` (0..1) busy, this
  // bookie wrote `written_bytes` for `seconds`, and its adds waited
  // `latency_s` (the reported add latency p99 is the worst tick of the
  // window: the ticks' latencies are means over their adds).
  void Accumulate(double seconds, double utilisation, double written_bytes,
                  double latency_s);
  // Closes the current sample interval and slides the window.
  void Sample();

  // The report a client polling now receives.
  placement::BookieInfo Report() const;

 private:
  struct WindowSample {
    double util_percent;
    double bytes_per_second;
    double worst_latency_s;
  };
  const size_t window_;
  const int64_t total_disk_bytes_;
  double free_disk_bytes_;
  // Current interval.
  double busy_seconds_ = 0;
  double seconds_ = 0;
  double bytes_ = 0;
  double worst_latency_s_ = 0;
  std::deque<WindowSample> samples_;  // newest last, at most window_
};

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_BOOKIE_MONITOR_H_
