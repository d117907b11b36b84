// JournalDevice: a fluid model of one journal disk shared by one or more
// bookies, stepped in ticks of simulated time.
//
// Service curve. The device writes `capacity` bytes/s when group commits are
// full, and each group commit (fsync) takes `sync` seconds. Within a tick the
// bytes offered are `offered`, the offered utilisation is
// rho = offered / (capacity x tick), and an add arriving in the tick waits
//   latency = sync x (1 + rho' / (2 (1 - rho')))     (M/D/1 mean wait,
//             + mean backlog / capacity               rho' = min(rho, 0.99))
// so an HDD-like device (sync of several ms, small capacity) queues early
// and steeply, an SSD-like one (sub-ms sync, large capacity) late. Bytes the
// device cannot write in the tick stay in a per-bookie backlog (FIFO by
// share), drained in later ticks; a backlog longer than `max_queue` seconds
// of work is cut there (the bookie would reject adds: ETOOMANYREQUESTS) and
// the cut bytes are counted as throttled.
//
// Utilisation as /proc/diskstats io_ticks reports it: 100% with a backlog,
// otherwise  u_sync + (1 - u_sync) x written / (capacity x tick), where
// u_sync = syncs/s x sync is the time spent in fsync: the journal syncs once
// per group, at most once per (sync + group_wait) (journalMaxGroupWaitMSec)
// and at most once per add. So an HDD journal with steady traffic is busy
// most of the time however few bytes it writes, an SSD one is not.
//
// A gray failure divides capacity by `slowdown` and multiplies sync by it.
// Not thread-safe; owned by the simulator.

#ifndef BK_TOOLS_SIM_JOURNAL_DEVICE_H_
#define BK_TOOLS_SIM_JOURNAL_DEVICE_H_

#include <vector>

namespace bk::sim {

class JournalDevice {
 public:
  // REQUIRES: capacity_bytes_per_second > 0, sync_seconds > 0,
  // group_wait_seconds >= 0,
  // max_queue_seconds > 0, bookies >= 1.
  JournalDevice(double capacity_bytes_per_second, double sync_seconds,
                double group_wait_seconds, double max_queue_seconds,
                int bookies);

  // Sets the slowdown factor (>= 1; 1 is healthy).
  void SetSlowdown(double slowdown) { slowdown_ = slowdown; }

  // Advances one tick of `tick_seconds` with `offered_bytes[i]` arriving for
  // local bookie i and `entries` adds in all. After it, the accessors below
  // describe this tick.
  void Step(double tick_seconds, const std::vector<double>& offered_bytes,
            double entries);

  double latency_seconds() const { return latency_; }
  double utilisation() const { return utilisation_; }  // 0..1
  // Bytes written for local bookie i in the last tick.
  double written_bytes(int i) const { return written_[i]; }
  double throttled_bytes() const { return throttled_; }
  double backlog_bytes() const;

 private:
  // Constant after construction.
  const double capacity_;
  const double sync_;
  const double group_wait_;
  const double max_queue_;

  double slowdown_ = 1;
  std::vector<double> backlog_;  // per local bookie, bytes
  std::vector<double> written_;  // per local bookie, last tick
  double latency_ = 0;
  double utilisation_ = 0;
  double throttled_ = 0;
};

}  // namespace bk::sim

#endif  // BK_TOOLS_SIM_JOURNAL_DEVICE_H_
