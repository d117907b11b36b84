// bkbench's CPU account: process and machine CPU time between two
// snapshots, read from a recorded procfs.

#include "tools/bkbench/cpu_account.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "test/support/temp_dir.h"

namespace bk::bkbench {
namespace {

// A process's stat line with `ticks` split over utime and stime.
std::string PidStat(int pid, int ticks) {
  return absl::StrCat(pid, " (a (b) c) S 1 1 1 0 -1 0 0 0 0 0 ", ticks / 2, " ",
                      ticks - ticks / 2, " 0 0 20 0 1 0 1 1 1\n");
}

// Two CPUs, each `busy` ticks busy (user) of `busy + idle`.
std::string ProcStat(int busy, int idle) {
  return absl::StrCat("cpu  0 0 0 0 0 0 0 0 0 0\n", "cpu0 ", busy, " 0 0 ",
                      idle, " 0 0 0 0 0 0\n", "cpu1 ", busy, " 0 0 ", idle,
                      " 0 0 0 0 0 0\n");
}

TEST_CASE("cpu account counts each process's ticks and the machine's busy time",
          "[bkbench]") {
  testing::TempDir tmp;
  const std::string proc = tmp.Sub("proc");
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  REQUIRE(tmp.WriteFile("proc/self/status",
                        "Name:\tbkbench\nCpus_allowed_list:\t0-1\n"));
  REQUIRE(tmp.WriteFile("proc/self/stat", PidStat(7, 100)));
  REQUIRE(tmp.WriteFile("proc/42/stat", PidStat(42, 200)));
  REQUIRE(tmp.WriteFile("proc/stat", ProcStat(1000, 1000)));
  CpuSnapshot a = TakeCpuSnapshot({42, 43}, proc);  // 43 is not there yet
  REQUIRE(a.cpus == 2);
  CHECK(a.pid_ticks[1] == -1);

  REQUIRE(tmp.WriteFile("proc/self/stat", PidStat(7, 150)));
  REQUIRE(tmp.WriteFile("proc/42/stat", PidStat(42, 300)));
  REQUIRE(tmp.WriteFile("proc/43/stat", PidStat(43, 999)));
  REQUIRE(tmp.WriteFile("proc/stat",
                        ProcStat(1200, 1000)));  // 400 ticks busy in all
  CpuSnapshot b = TakeCpuSnapshot({42, 43}, proc);
  b.at = a.at + absl::Seconds(2);

  const CpuUse u = CpuBetween(a, b);
  CHECK(u.wall_s == Approx(2.0));
  CHECK(u.self_s == Approx(50 * tick));
  CHECK(u.others_s == Approx(100 * tick));  // 43 counts nothing
  REQUIRE(u.per_pid_s.size() == 2);
  CHECK(u.per_pid_s[0] == Approx(100 * tick));
  CHECK(u.per_pid_s[1] == 0);
  CHECK(u.machine_s == Approx(400 * tick));
  CHECK(u.ours() == Approx(150 * tick));
  // Others kept (400 - 150) ticks busy over 2 s of 2 CPUs.
  CHECK(u.cores_left() == Approx(2 - 250 * tick / 2));
}

}  // namespace
}  // namespace bk::bkbench
