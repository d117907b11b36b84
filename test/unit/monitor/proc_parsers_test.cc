// Parsers of /proc files, fed files recorded on this kind of machine
// (testdata/proc) and hand-made ones in the same format.

#include <catch2/catch.hpp>
#include <string>

#include "monitor/cpu_stat.h"
#include "monitor/diskstats.h"
#include "monitor/read_file.h"

namespace bk::monitor {
namespace {

std::string Testdata(const std::string& name) {
  auto text = ReadSmallFile(std::string(BK_MONITOR_TESTDATA) + "/" + name);
  REQUIRE(text.ok());
  return *text;
}

TEST_CASE(
    "io_ticks is the tenth counter after the device name, sectors written "
    "the seventh",
    "[monitor]") {
  // Recorded: " 254       0 vda 38521 7872 3014114 24110 17287 8877 2825048
  //             6259 0 7688 31094 6575 68 1166016 627 2477 96"
  auto ticks = ParseDiskstats(Testdata("proc/diskstats"));
  REQUIRE(ticks.ok());
  CHECK(ticks->at("vda").io_ticks == 7688);
  CHECK(ticks->at("vda").sectors_written == 2825048);
  CHECK(ticks->at("loop0").io_ticks == 0);
  CHECK(ticks->contains("zram0"));
}

TEST_CASE("diskstats of kernels before 4.18 (11 counters) parse the same",
          "[monitor]") {
  auto ticks = ParseDiskstats(
      "   8       0 sda 4862 1037 274134 3400 2287 3108 68168 11560 0 7880 "
      "14960\n"
      "   8       1 sda1 4780 1037 271318 3352 2269 3108 68168 11544 0 7812 "
      "14896\n");
  REQUIRE(ticks.ok());
  CHECK(ticks->at("sda").io_ticks == 7880);
  CHECK(ticks->at("sda").sectors_written == 68168);
  CHECK(ticks->at("sda1").io_ticks == 7812);
}

TEST_CASE("a truncated diskstats line is rejected", "[monitor]") {
  auto ticks = ParseDiskstats("   8       0 sda 4862 1037 274134\n");
  CHECK(ticks.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("cpu lists of ranges and single CPUs are parsed", "[monitor]") {
  CHECK(*ParseCpuList("0-1") == std::vector<int>{0, 1});
  CHECK(*ParseCpuList("0,2-3,7\n") == std::vector<int>{0, 2, 3, 7});
  CHECK(*ParseCpuList("5") == std::vector<int>{5});
  CHECK_FALSE(ParseCpuList("").ok());
  CHECK_FALSE(ParseCpuList("3-1").ok());
  CHECK_FALSE(ParseCpuList("0-x").ok());
  CHECK_FALSE(ParseCpuList("1-2-3").ok());
  CHECK_FALSE(ParseCpuList("0-100000").ok());
}

TEST_CASE("Cpus_allowed_list is found in a recorded /proc/self/status",
          "[monitor]") {
  auto cpus = ParseCpusAllowedList(Testdata("proc/self_status"));
  REQUIRE(cpus.ok());
  CHECK(*cpus == std::vector<int>{0, 1});
}

TEST_CASE("a recorded /proc/stat pair gives the allowed CPUs' tick deltas",
          "[monitor]") {
  // Recorded one second apart while two compilers ran: every tick busy.
  auto before = ParseProcStat(Testdata("proc/stat.0"), {0, 1});
  auto after = ParseProcStat(Testdata("proc/stat.1"), {0, 1});
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  CHECK(before->cpus == std::vector<int>{0, 1});
  // cpu0 8292->8387 user, 2004->2010 system; cpu1 9054->9149, 2773->2779.
  CHECK(after->total - before->total == 202);
  CHECK(after->busy - before->busy == 202);
}

TEST_CASE("CPUs outside the allowed list and offline CPUs are left out",
          "[monitor]") {
  const std::string stat =
      "cpu  400 0 400 3200 0 0 0 0 0 0\n"
      "cpu0 100 0 100 800 0 0 0 0 0 0\n"
      "cpu1 100 0 100 800 0 0 0 0 0 0\n"
      "cpu2 100 0 100 800 0 0 0 0 0 0\n";
  auto some = ParseProcStat(stat, {1, 2, 9});
  REQUIRE(some.ok());
  CHECK(some->cpus == std::vector<int>{1, 2});
  CHECK(some->total == 2000);
  CHECK(some->busy == 400);
  CHECK(ParseProcStat(stat, {9}).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("guest time is not counted twice and iowait counts as idle",
          "[monitor]") {
  // user nice system idle iowait irq softirq steal guest guest_nice
  auto t = ParseProcStat("cpu0 50 10 20 100 30 5 5 10 40 10\n", {0});
  REQUIRE(t.ok());
  CHECK(t->total == 230);
  CHECK(t->busy == 100);
}

TEST_CASE("process ticks are utime plus stime even with a strange comm",
          "[monitor]") {
  auto ticks = ParseProcessTicks(
      "5196 (bk (journal) x) R 5187 5187 4351 0 -1 4194304 100 0 0 0 "
      "123 45 0 0 20 0 1 0 29200 3133440 415\n");
  REQUIRE(ticks.ok());
  CHECK(*ticks == 168);
  CHECK_FALSE(ParseProcessTicks("5196 (cat) R 1 2").ok());
}

}  // namespace
}  // namespace bk::monitor
