// BookieInfoFromWire and ToPlacementInfo (client/internal/bookie_info_wire.h):
// a figure a bookie did not send reads as unknown (-1), a figure it sent as
// 0 reads as 0, across a serialization round trip as a bookie's answer
// makes one.

#include "client/internal/bookie_info_wire.h"

#include <catch2/catch.hpp>
#include <string>

namespace bk::client::internal {
namespace {

// What the bookie's wire bytes parse into.
proto::GetBookieInfoResponse RoundTrip(const proto::GetBookieInfoResponse& r) {
  std::string bytes;
  REQUIRE(r.SerializeToString(&bytes));
  proto::GetBookieInfoResponse parsed;
  REQUIRE(parsed.ParseFromString(bytes));
  return parsed;
}

TEST_CASE("bookie info figures a bookie did not send read as unknown") {
  // An answer with the disk figures only, as BookKeeper's first
  // GetBookieInfo had them.
  proto::GetBookieInfoResponse r;
  r.set_status(proto::BK_EOK);
  r.set_total_disk_capacity(1000);
  r.set_free_disk_space(400);
  const proto::GetBookieInfoResponse got = RoundTrip(r);

  const BookieInfo i = BookieInfoFromWire(got);
  CHECK(i.total_disk_capacity == 1000);
  CHECK(i.free_disk_space == 400);
  CHECK(i.journal_io_util == -1);
  CHECK(i.ledger_io_util == -1);
  CHECK(i.cpu_used_rate == -1);
  CHECK(i.write_bytes_per_second == -1);
  CHECK(i.journal_device_write_bytes_per_second == -1);
  CHECK(i.window_ms == -1);
  CHECK(i.adds_in_flight == -1);
  CHECK(i.journal_queue_depth == -1);
  CHECK(i.add_latency_p99_ms == -1);
  CHECK(i.journal_util_source == "unknown");
  CHECK_FALSE(i.read_only);

  const placement::BookieInfo p = ToPlacementInfo(got);
  CHECK(p.total_disk_bytes == 1000);
  CHECK(p.free_disk_bytes == 400);
  CHECK(p.journal_io_util == -1);
  CHECK(p.ledger_io_util == -1);
  CHECK(p.cpu_used_rate == -1);
  CHECK(p.write_bytes_per_second == -1);
  CHECK(p.add_latency_p99_ms == -1);
}

TEST_CASE("bookie info figures measured as 0 read as 0, not unknown") {
  proto::GetBookieInfoResponse r;
  r.set_status(proto::BK_EOK);
  r.set_journal_io_util(0);
  r.set_ledger_io_util(0);
  r.set_cpu_used_rate(0);
  r.set_write_bytes_per_second(0);
  r.set_journal_device_write_bytes_per_second(0);
  r.set_window_ms(3000);
  r.set_adds_in_flight(0);
  r.set_journal_queue_depth(0);
  r.set_add_latency_p99_ms(0);
  const proto::GetBookieInfoResponse got = RoundTrip(r);

  const BookieInfo i = BookieInfoFromWire(got);
  CHECK(i.journal_io_util == 0);
  CHECK(i.ledger_io_util == 0);
  CHECK(i.cpu_used_rate == 0);
  CHECK(i.write_bytes_per_second == 0);
  CHECK(i.journal_device_write_bytes_per_second == 0);
  CHECK(i.window_ms == 3000);
  CHECK(i.adds_in_flight == 0);
  CHECK(i.journal_queue_depth == 0);
  CHECK(i.add_latency_p99_ms == 0);

  const placement::BookieInfo p = ToPlacementInfo(got);
  CHECK(p.journal_io_util == 0);
  CHECK(p.write_bytes_per_second == 0);
  CHECK(p.add_latency_p99_ms == 0);
}

TEST_CASE("bookie info from a bookie without the journal device field") {
  // Every figure but field 17, as a bookie from before it sends them.
  proto::GetBookieInfoResponse r;
  r.set_status(proto::BK_EOK);
  r.set_journal_io_util(42.5);
  r.set_write_bytes_per_second(5 << 20);
  r.set_window_ms(3000);
  r.set_add_latency_p99_ms(2.5);
  r.set_journal_util_source(proto::BLOCK_DEVICE);
  const BookieInfo i = BookieInfoFromWire(RoundTrip(r));
  CHECK(i.journal_io_util == 42.5);
  CHECK(i.write_bytes_per_second == 5 << 20);
  CHECK(i.window_ms == 3000);
  CHECK(i.add_latency_p99_ms == 2.5);
  CHECK(i.journal_util_source == "block_device");
  CHECK(i.journal_device_write_bytes_per_second == -1);
}

}  // namespace
}  // namespace bk::client::internal
