// ProcessStats: the standard process figures from procfs, parsed from
// hand-made files in the kernel's format and read live from this process.

#include "monitor/process_stats.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <string>

#include "test/unit/monitor/fake_host.h"

namespace bk::monitor {
namespace {

// Fields 14-15 (utime, stime) 700 + 300, 20 (threads) 17, 22 (starttime)
// 29200, 23 (vsize) 3133440, 24 (rss) 415; the command holds ") (".
constexpr char kStat[] =
    "42 (bk) (x) S 1 42 42 0 -1 4194304 100 0 0 0 700 300 0 0 20 0 17 0 "
    "29200 3133440 415 18446744073709551615 1 1 0 0 0\n";

TEST_CASE("a process's stat gives its CPU ticks, threads, start and memory",
          "[monitor]") {
  auto f = ParseProcessStatFields(kStat);
  REQUIRE(f.ok());
  CHECK(f->cpu_ticks == 1000);
  CHECK(f->threads == 17);
  CHECK(f->start_ticks == 29200);
  CHECK(f->vsize_bytes == 3133440);
  CHECK(f->rss_pages == 415);
}

TEST_CASE("a process stat cut short or without a name is refused",
          "[monitor]") {
  CHECK(ParseProcessStatFields("42 bk S 1 2 3").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ParseProcessStatFields("42 (bk) S 1 42 42 0 -1 4194304 100 0 0 0 7 3")
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("boot time and the open-files limit are read from their lines",
          "[monitor]") {
  auto boot = ParseBootTime("cpu  1 2 3 4\nintr 5\nbtime 1796380513\n");
  REQUIRE(boot.ok());
  CHECK(*boot == 1796380513);
  CHECK(ParseBootTime("cpu  1 2 3 4\n").status().code() ==
        absl::StatusCode::kNotFound);
  constexpr char kLimits[] =
      "Limit                     Soft Limit           Hard Limit           "
      "Units     \n"
      "Max open files            20000                524288               "
      "files     \n";
  auto max = ParseMaxOpenFiles(kLimits);
  REQUIRE(max.ok());
  CHECK(*max == 20000);  // the soft limit, which is what open() runs into
  auto unlimited = ParseMaxOpenFiles(
      "Max open files            unlimited            unlimited            "
      "files     \n");
  REQUIRE(unlimited.ok());
  CHECK(*unlimited == -1);
  CHECK(ParseMaxOpenFiles("Max processes 10 10\n").status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("the figures of a recorded-style proc tree, in seconds and bytes",
          "[monitor]") {
  testing::FakeHost host;
  host.WriteProcFile("self/stat", kStat);
  host.WriteProcFile("stat", "cpu  1 2 3 4\nbtime 1796380513\n");
  host.WriteProcFile("self/limits", "Max open files 1024 4096 files\n");
  for (const char* fd : {"self/fd/0", "self/fd/1", "self/fd/2"}) {
    host.WriteProcFile(fd, "");
  }
  const ProcessStats s = ReadProcessStats(host.proc_root());
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  CHECK(s.cpu_seconds == Approx(1000 / hz));
  CHECK(s.threads == 17);
  CHECK(s.virtual_bytes == 3133440);
  CHECK(s.resident_bytes == 415 * page);
  CHECK(s.start_time_seconds == Approx(1796380513 + 29200 / hz));
  CHECK(s.open_fds == 3);
  CHECK(s.max_fds == 1024);
}

TEST_CASE("what cannot be read stays unknown (-1), never 0", "[monitor]") {
  testing::FakeHost host;
  host.WriteProcFile("self/stat", "garbage");
  const ProcessStats s = ReadProcessStats(host.proc_root());
  CHECK(s.cpu_seconds == -1);
  CHECK(s.threads == -1);
  CHECK(s.resident_bytes == -1);
  CHECK(s.start_time_seconds == -1);
  CHECK(s.open_fds == -1);  // no fd directory
  CHECK(s.max_fds == -1);   // no limits file
}

TEST_CASE("this process's own figures read from /proc are plausible",
          "[monitor]") {
  const ProcessStats s = ReadProcessStats();
  CHECK(s.cpu_seconds >= 0);
  CHECK(s.threads >= 1);
  CHECK(s.resident_bytes > 0);
  CHECK(s.virtual_bytes >= s.resident_bytes);
  CHECK(s.open_fds >= 3);  // stdin, stdout, stderr at least
  CHECK((s.max_fds == -1 || s.max_fds >= s.open_fds));
  const double now = static_cast<double>(std::time(nullptr));
  CHECK(s.start_time_seconds <= now + 1);
  CHECK(s.start_time_seconds > now - 7 * 24 * 3600);
}

}  // namespace
}  // namespace bk::monitor
