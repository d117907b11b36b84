// bkbench write's CPU split: the client's, the bookies' (scraped
// process_cpu_seconds_total) and the machine's CPU per entry between two
// snapshots.

#include "tools/bkbench/run_cpu.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"

namespace bk::bkbench {
namespace {

RunCpuSnapshot Snapshot(double bookies_s, std::vector<bool> answered,
                        absl::Time at, int64_t self_ticks, int64_t busy) {
  RunCpuSnapshot s;
  s.bookies_s = bookies_s;
  s.answered = std::move(answered);
  s.local.at = at;
  s.local.self_ticks = self_ticks;
  s.local.machine_busy_ticks = busy;
  s.local.machine_total_ticks = busy * 2;
  s.local.cpus = 2;
  return s;
}

TEST_CASE("a run's CPU per entry splits into client, bookies and machine",
          "[bkbench]") {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const RunCpuSnapshot a = Snapshot(30.0, {true, true, true}, t0, 100, 5000);
  const RunCpuSnapshot b =
      Snapshot(42.0, {true, true, true}, t0 + absl::Seconds(10), 100, 5000);
  RunCpu cpu = RunCpuBetween(a, b);
  CHECK(cpu.wall_s == Approx(10));
  CHECK(cpu.bookies == 3);
  CHECK(cpu.bookies_s == Approx(12));
  // 12 s of the bookies' CPU over 1,000,000 entries: 12 us each, 4 us per
  // replica-add at 3 replicas.
  CHECK(cpu.BookiesUsPerEntry(1e6) == Approx(12));
  const std::string line = DescribeRunCpu(cpu, 1e6, 3, 11.7);
  INFO(line);
  CHECK(absl::StrContains(line, "bookies 12.0 us (4.0 us per replica-add"));
  CHECK(absl::StrContains(line, "the echo ceiling 11.7 us"));
  CHECK(cpu.ClientUsPerEntry(0) == -1);  // no entries: no figure
}

TEST_CASE(
    "a bookie that did not answer at either end leaves the bookies' "
    "CPU unknown, not short",
    "[bkbench]") {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const RunCpuSnapshot a = Snapshot(30.0, {true, false, true}, t0, 100, 5000);
  const RunCpuSnapshot b =
      Snapshot(42.0, {true, true, true}, t0 + absl::Seconds(10), 150, 6000);
  RunCpu cpu = RunCpuBetween(a, b);
  CHECK(cpu.bookies_s == -1);
  CHECK(cpu.bookies == 2);  // the two that answered both times
  CHECK(cpu.BookiesUsPerEntry(1e6) == -1);
  CHECK(cpu.client_s > 0);  // this process's own figure stands
  CHECK(cpu.MachineBusyPercent() > 0);
  CHECK(absl::StrContains(DescribeRunCpu(cpu, 1e6, 3, -1), "bookies unknown"));
}

TEST_CASE(
    "a bookie endpoint that refuses the scrape is counted as not "
    "answering",
    "[bkbench]") {
  // Port 1 on loopback: nothing listens there (connection refused at once).
  const RunCpuSnapshot s = TakeRunCpu({"127.0.0.1:1", ""});
  REQUIRE(s.answered.size() == 2);
  CHECK(!s.answered[0]);
  CHECK(!s.answered[1]);
  CHECK(s.bookies_s == 0);
  CHECK(s.local.self_ticks >= 0);
}

}  // namespace
}  // namespace bk::bkbench
