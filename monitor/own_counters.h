// OwnCounters: the bookie's own running totals, read by the monitor.
//
// The bookie implements this (typically over std::atomic counters its journal
// and flush threads bump) and hands it to BaseMetricMonitor, so the monitor
// never includes bookie code.
//
// Contract for implementations:
//   - every value is a monotonic total since the bookie started (never
//     decreases); a negative value means "not tracked" and makes the figures
//     derived from it -1;
//   - methods are called from the monitor's sampling thread (and from any
//     thread that calls SampleOnce), concurrently with the bookie's updates,
//     so they must be thread-safe, cheap and non-blocking;
//   - the object must outlive the monitor.

#ifndef BK_MONITOR_OWN_COUNTERS_H_
#define BK_MONITOR_OWN_COUNTERS_H_

#include <cstdint>

namespace bk::monitor {

class OwnCounters {
 public:
  virtual ~OwnCounters() = default;

  // Bytes of entries the bookie has written (journal records as appended).
  // Gives write_bytes_per_second.
  virtual int64_t BytesWritten() const = 0;

  // Nanoseconds the journal thread has spent inside write + sync calls.
  // Gives journal_io_util when the journal device cannot be measured.
  virtual int64_t JournalBusyNanos() const = 0;

  // Nanoseconds the ledger flush has spent writing and syncing entry logs
  // and the index. Gives ledger_io_util when the ledger device cannot be
  // measured.
  virtual int64_t LedgerBusyNanos() const = 0;
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_OWN_COUNTERS_H_
