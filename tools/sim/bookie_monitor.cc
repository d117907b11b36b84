#include "tools/sim/bookie_monitor.h"

#include <algorithm>

namespace bk::sim {

BookieMonitor::BookieMonitor(int window, int64_t total_disk_bytes,
                             int64_t free_disk_bytes)
    : window_(static_cast<size_t>(std::max(window, 1))),
      total_disk_bytes_(total_disk_bytes),
      free_disk_bytes_(static_cast<double>(free_disk_bytes)) {}

void BookieMonitor::Accumulate(double seconds, double utilisation,
                               double written_bytes, double latency_s) {
  worst_latency_s_ = std::max(worst_latency_s_, latency_s);
  busy_seconds_ += seconds * utilisation;
  seconds_ += seconds;
  bytes_ += written_bytes;
  // Entries land on the ledger disk too (after the write cache flushes);
  // nothing is deleted within a run.
  free_disk_bytes_ = std::max(0.0, free_disk_bytes_ - written_bytes);
}

void BookieMonitor::Sample() {
  if (seconds_ <= 0) return;
  samples_.push_back(
      {100 * busy_seconds_ / seconds_, bytes_ / seconds_, worst_latency_s_});
  if (samples_.size() > window_) samples_.pop_front();
  busy_seconds_ = seconds_ = bytes_ = worst_latency_s_ = 0;
}

placement::BookieInfo BookieMonitor::Report() const {
  placement::BookieInfo info;
  info.total_disk_bytes = total_disk_bytes_;
  info.free_disk_bytes = static_cast<int64_t>(free_disk_bytes_);
  if (samples_.empty()) return info;
  double util = 0, bytes = 0, worst = 0;
  for (const WindowSample& s : samples_) {
    util += s.util_percent;
    bytes += s.bytes_per_second;
    worst = std::max(worst, s.worst_latency_s);
  }
  info.add_latency_p99_ms = 1000 * worst;
  info.journal_io_util = util / static_cast<double>(samples_.size());
  info.write_bytes_per_second = bytes / static_cast<double>(samples_.size());
  return info;
}

}  // namespace bk::sim
