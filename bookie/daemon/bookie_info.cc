#include "bookie/daemon/bookie_info.h"

#include <set>

namespace bk::bookie {
namespace {

proto::UtilSource ToWire(monitor::UtilSource s) {
  switch (s) {
    case monitor::UtilSource::kBlockDevice:
      return proto::BLOCK_DEVICE;
    case monitor::UtilSource::kOwnBusyTime:
      return proto::OWN_BUSY_TIME;
    default:
      return proto::UTIL_UNKNOWN;
  }
}

// A rate in whole bytes per second; -1 stays -1.
int64_t WholeBytes(double bytes_per_second) {
  return bytes_per_second < 0 ? -1 : static_cast<int64_t>(bytes_per_second);
}

}  // namespace

proto::GetBookieInfoResponse MakeBookieInfo(uint64_t requested,
                                            const BookieInfoInputs& in) {
  proto::GetBookieInfoResponse r;
  r.set_total_disk_capacity(-1);
  r.set_free_disk_space(-1);
  r.set_journal_io_util(-1);
  r.set_ledger_io_util(-1);
  r.set_cpu_used_rate(-1);
  r.set_write_bytes_per_second(-1);
  r.set_window_ms(-1);
  r.set_adds_in_flight(-1);
  r.set_journal_queue_depth(-1);
  r.set_add_latency_p99_ms(-1);
  r.set_journal_io_util_max(-1);
  r.set_ledger_io_util_max(-1);
  r.set_journal_device_write_bytes_per_second(-1);
  r.set_read_only(!in.store.writable);

  // Disk figures: the monitor's window when it has one, else the last disk
  // check (ledger dirs only, each filesystem counted once by the monitor).
  int64_t total = in.load.total_disk_bytes;
  int64_t free = in.load.free_disk_bytes;
  if (total < 0 && !in.disk.dirs.empty()) {
    // Dirs on one filesystem report the same figures: count each once.
    std::set<std::pair<uint64_t, uint64_t>> seen;
    total = 0;
    free = 0;
    for (const DirUsage& d : in.disk.dirs) {
      if (!d.error.ok()) {
        total = free = -1;
        break;
      }
      if (!seen.insert({d.total_bytes, d.free_bytes}).second) continue;
      total += static_cast<int64_t>(d.total_bytes);
      free += static_cast<int64_t>(d.free_bytes);
    }
  }
  if (requested & proto::TOTAL_DISK_CAPACITY) r.set_total_disk_capacity(total);
  if (requested & proto::FREE_DISK_SPACE) r.set_free_disk_space(free);
  if (requested & proto::LOAD) {
    r.set_journal_io_util(in.load.journal_io.util);
    r.set_journal_io_util_max(in.load.journal_io.util_max);
    r.set_journal_util_source(ToWire(in.load.journal_io.source));
    r.set_ledger_io_util(in.load.ledger_io.util);
    r.set_ledger_io_util_max(in.load.ledger_io.util_max);
    r.set_ledger_util_source(ToWire(in.load.ledger_io.source));
    r.set_cpu_used_rate(in.load.cpu_used_rate);
    r.set_write_bytes_per_second(WholeBytes(in.load.write_bytes_per_second));
    r.set_journal_device_write_bytes_per_second(
        WholeBytes(in.load.journal_io.device_write_bytes_per_second));
    r.set_window_ms(in.load.window_ms);
    r.set_adds_in_flight(in.store.adds_in_flight);
    r.set_journal_queue_depth(in.store.journal_queue_depth);
    r.set_add_latency_p99_ms(in.add_latency_p99_ms);
  }
  return r;
}

}  // namespace bk::bookie
