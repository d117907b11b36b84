#include "client/internal/bookie_info_wire.h"

#include "proto/enum_names.h"

namespace bk::client::internal {
namespace {

// `value` when the bookie sent the figure, else -1 (unknown).
template <typename T>
T Figure(bool sent, T value) {
  return sent ? value : static_cast<T>(-1);
}

}  // namespace

BookieInfo BookieInfoFromWire(const proto::GetBookieInfoResponse& r) {
  BookieInfo i;
  i.total_disk_capacity = r.total_disk_capacity();
  i.free_disk_space = r.free_disk_space();
  i.journal_io_util = Figure(r.has_journal_io_util(), r.journal_io_util());
  i.ledger_io_util = Figure(r.has_ledger_io_util(), r.ledger_io_util());
  i.journal_util_source = proto::UtilSourceName(r.journal_util_source());
  i.ledger_util_source = proto::UtilSourceName(r.ledger_util_source());
  i.cpu_used_rate = Figure(r.has_cpu_used_rate(), r.cpu_used_rate());
  i.write_bytes_per_second =
      Figure(r.has_write_bytes_per_second(), r.write_bytes_per_second());
  i.journal_device_write_bytes_per_second =
      Figure(r.has_journal_device_write_bytes_per_second(),
             r.journal_device_write_bytes_per_second());
  i.window_ms = Figure(r.has_window_ms(), r.window_ms());
  i.adds_in_flight = Figure(r.has_adds_in_flight(), r.adds_in_flight());
  i.journal_queue_depth =
      Figure(r.has_journal_queue_depth(), r.journal_queue_depth());
  i.add_latency_p99_ms =
      Figure(r.has_add_latency_p99_ms(), r.add_latency_p99_ms());
  i.read_only = r.read_only();
  return i;
}

placement::BookieInfo ToPlacementInfo(const proto::GetBookieInfoResponse& r) {
  placement::BookieInfo i;
  i.free_disk_bytes = r.free_disk_space();
  i.total_disk_bytes = r.total_disk_capacity();
  i.journal_io_util = Figure(r.has_journal_io_util(), r.journal_io_util());
  i.ledger_io_util = Figure(r.has_ledger_io_util(), r.ledger_io_util());
  i.cpu_used_rate = Figure(r.has_cpu_used_rate(), r.cpu_used_rate());
  i.write_bytes_per_second = static_cast<double>(
      Figure(r.has_write_bytes_per_second(), r.write_bytes_per_second()));
  i.add_latency_p99_ms =
      Figure(r.has_add_latency_p99_ms(), r.add_latency_p99_ms());
  return i;
}

}  // namespace bk::client::internal
