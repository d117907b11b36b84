// bkbench's check before a run (writable_bookies.h): a cluster with too few
// writable bookies is refused with each read-only bookie named, with the
// reason it gave and its disk figures; enough writable ones pass.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "tools/bkbench/writable_bookies.h"

namespace bk::bkbench {
namespace {

BookieWriteState Writable(const std::string& id) {
  BookieWriteState b;
  b.id = id;
  return b;
}

BookieWriteState FullDisk(const std::string& id) {
  BookieWriteState b;
  b.id = id;
  b.read_only = true;
  b.reason =
      "EREADONLY: bookie is read-only: disk usage 97.0% > diskUsageThreshold "
      "95.0% "
      "(writable again below diskUsageLwmThreshold 90.0%)";
  b.total_disk_bytes = int64_t{100} << 30;
  b.free_disk_bytes = int64_t{3} << 30;
  return b;
}

TEST_CASE("a read-only bookie is described by its reason and disk figures",
          "[bkbench]") {
  CHECK(DescribeReadOnly(FullDisk("bookie-2")) ==
        "bookie-2 is read-only: disk usage 97.0% > diskUsageThreshold 95.0% "
        "(writable again below diskUsageLwmThreshold 90.0%) (disk 97.0% "
        "used, 3.0 GiB free of 100.0 GiB)");
  BookieWriteState silent = FullDisk("bookie-1");
  silent.reason = "";
  CHECK(DescribeReadOnly(silent) ==
        "bookie-1 is read-only: disk 97.0% used, 3.0 GiB free of 100.0 GiB");
  silent.total_disk_bytes = -1;
  CHECK(absl::StrContains(DescribeReadOnly(silent), "gave no reason"));
}

TEST_CASE("too few writable bookies are refused naming every read-only one",
          "[bkbench]") {
  const std::vector<BookieWriteState> bookies = {
      FullDisk("bookie-0"), Writable("bookie-1"), FullDisk("bookie-2")};
  const absl::Status s = CheckEnoughWritable(bookies, 3);
  INFO(s.ToString());
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  const std::string m(s.message());
  CHECK(absl::StrContains(m, "ensembles of 3: 3 registered, 1 writable"));
  CHECK(absl::StrContains(m,
                          "bookie-0 is read-only: disk usage 97.0% > "
                          "diskUsageThreshold 95.0%"));
  CHECK(absl::StrContains(m, "bookie-2 is read-only"));
  CHECK_FALSE(absl::StrContains(m, "bookie-1"));
}

TEST_CASE("enough writable bookies pass beside read-only ones", "[bkbench]") {
  const std::vector<BookieWriteState> bookies = {
      FullDisk("bookie-0"), Writable("bookie-1"), Writable("bookie-2")};
  CHECK(CheckEnoughWritable(bookies, 2).ok());
  CHECK_FALSE(CheckEnoughWritable(bookies, 3).ok());
  CHECK(CheckEnoughWritable({}, 0).ok());
}

TEST_CASE("a cluster without bookies says so", "[bkbench]") {
  const absl::Status s = CheckEnoughWritable({}, 3);
  CHECK(absl::StrContains(s.message(), "0 registered, 0 writable"));
  CHECK(absl::StrContains(s.message(), "start more bookies"));
}

}  // namespace
}  // namespace bk::bkbench
