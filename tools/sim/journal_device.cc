#include "tools/sim/journal_device.h"

#include <algorithm>
#include <cmath>

namespace bk::sim {

JournalDevice::JournalDevice(double capacity_bytes_per_second,
                             double sync_seconds, double group_wait_seconds,
                             double max_queue_seconds, int bookies)
    : capacity_(capacity_bytes_per_second),
      sync_(sync_seconds),
      group_wait_(group_wait_seconds),
      max_queue_(max_queue_seconds),
      backlog_(bookies, 0.0),
      written_(bookies, 0.0) {}

double JournalDevice::backlog_bytes() const {
  double total = 0;
  for (double b : backlog_) total += b;
  return total;
}

void JournalDevice::Step(double tick_seconds,
                         const std::vector<double>& offered_bytes,
                         double entries) {
  const double capacity = capacity_ / slowdown_;
  const double sync = sync_ * slowdown_;
  const double can_write = capacity * tick_seconds;

  double offered = 0;
  double before = 0;
  for (size_t i = 0; i < backlog_.size(); ++i) {
    offered += offered_bytes[i];
    before += backlog_[i];
  }
  const double pending = before + offered;
  const double written = std::min(pending, can_write);
  // Each bookie's share of what was written is its share of what was
  // pending: the journal writes what was queued first, and bookies sharing a
  // disk are served alike.
  const double served = pending > 0 ? written / pending : 0;
  double after = 0;
  for (size_t i = 0; i < backlog_.size(); ++i) {
    const double mine = backlog_[i] + offered_bytes[i];
    written_[i] = mine * served;
    backlog_[i] = mine - written_[i];
    after += backlog_[i];
  }
  throttled_ = 0;
  const double limit = capacity * max_queue_;
  if (after > limit) {
    const double keep = limit / after;
    for (double& b : backlog_) {
      throttled_ += b * (1 - keep);
      b *= keep;
    }
    after = limit;
  }

  const double rho = std::min(offered / can_write, 0.99);
  const double queueing = sync * (1 + rho / (2 * (1 - rho)));
  latency_ = queueing + (before + after) / 2 / capacity;

  if (after > 0) {
    utilisation_ = 1;
  } else {
    const double syncs_per_second =
        std::min(entries / tick_seconds, 1 / (sync + group_wait_));
    const double sync_busy = std::min(1.0, syncs_per_second * sync);
    utilisation_ =
        std::min(1.0, sync_busy + (1 - sync_busy) * written / can_write);
  }
}

}  // namespace bk::sim
