// GetBookieInfo's answer as the daemon builds it (bookie_info.h): the load
// figures under LOAD, -1 where unknown or not asked for.

#include "bookie/daemon/bookie_info.h"

#include <catch2/catch.hpp>

namespace bk::bookie {
namespace {

TEST_CASE(
    "the journal device's write rate goes out under LOAD, -1 when unknown "
    "or not asked for",
    "[bookie]") {
  BookieInfoInputs in;
  in.load.write_bytes_per_second = 1'000'000.7;
  in.load.journal_io.util = 70;
  in.load.journal_io.device_write_bytes_per_second = 30'000'000.4;

  proto::GetBookieInfoResponse r = MakeBookieInfo(proto::LOAD, in);
  CHECK(r.write_bytes_per_second() == 1'000'000);
  CHECK(r.journal_io_util() == 70);
  CHECK(r.journal_device_write_bytes_per_second() == 30'000'000);

  // Not asked for: -1, not 0.
  r = MakeBookieInfo(proto::FREE_DISK_SPACE, in);
  CHECK(r.journal_device_write_bytes_per_second() == -1);
  CHECK(r.write_bytes_per_second() == -1);

  // Unknown (diskstats unreadable, or a disk vanished): -1.
  in.load.journal_io.device_write_bytes_per_second = -1;
  r = MakeBookieInfo(proto::LOAD, in);
  CHECK(r.journal_device_write_bytes_per_second() == -1);
}

}  // namespace
}  // namespace bk::bookie
