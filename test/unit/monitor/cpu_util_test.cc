// CPU figures from recorded /proc/stat pairs, through BaseMetricMonitor.

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "monitor/base_metric_monitor.h"
#include "monitor/read_file.h"
#include "test/unit/monitor/monitor_rig.h"

namespace bk::monitor {
namespace {

using testing::MonitorRig;

std::string SelfStat(int utime, int stime) {
  return absl::StrCat("4351 (bookie) S 1 4351 4351 0 -1 4194560 2961 0 0 0 ",
                      utime, " ", stime, " 0 0 20 0 9 0 29200 3133440 415\n");
}

TEST_CASE("cpu use is over the allowed CPUs only, from /proc/stat pairs",
          "[monitor]") {
  MonitorRig rig;
  rig.options.slide_window_size = 1;
  rig.host.WriteProcFile("self/status",
                         "Name:\tbookie\nCpus_allowed:\td\n"
                         "Cpus_allowed_list:\t0,2-3\n");
  // user nice system idle iowait irq softirq steal guest guest_nice
  rig.host.WriteProcFile("stat",
                         "cpu  4000 0 1000 12000 100 0 0 0 0 0\n"
                         "cpu0 1000 0 250 3000 25 0 0 0 0 0\n"
                         "cpu1 1000 0 250 3000 25 0 0 0 0 0\n"
                         "cpu2 1000 0 250 3000 25 0 0 0 0 0\n"
                         "cpu3 1000 0 250 3000 25 0 0 0 0 0\n"
                         "intr 218147 0 0 0\nctxt 5519412\n");
  rig.host.WriteProcFile("self/stat", SelfStat(500, 100));
  auto monitor = rig.Make();
  rig.Step(*monitor);
  // One second later: cpu0 60 busy / 40 idle, cpu1 (not allowed) all busy,
  // cpu2 20 / 80, cpu3 10 busy, 85 idle, 5 iowait.
  rig.host.WriteProcFile("stat",
                         "cpu  4190 0 1000 12205 105 0 0 0 0 0\n"
                         "cpu0 1050 0 260 3040 25 0 0 0 0 0\n"
                         "cpu1 1100 0 250 3000 25 0 0 0 0 0\n"
                         "cpu2 1015 0 255 3080 25 0 0 0 0 0\n"
                         "cpu3 1005 0 250 3085 30 0 3 2 0 0\n"
                         "intr 219001 0 0 0\nctxt 5520010\n");
  rig.host.WriteProcFile("self/stat", SelfStat(530, 115));
  rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  // busy 60 + 20 + 10 = 90 of 300 ticks; own 45 of 300.
  CHECK(r.cpu_used_rate == 30);
  CHECK(r.process_cpu_used_rate == 15);
}

TEST_CASE("cpu use from a pair recorded on this kind of machine", "[monitor]") {
  MonitorRig rig;
  rig.options.slide_window_size = 1;
  auto recorded = [](const std::string& name) {
    auto text =
        ReadSmallFile(std::string(BK_MONITOR_TESTDATA) + "/proc/" + name);
    REQUIRE(text.ok());
    return *text;
  };
  rig.host.WriteProcFile("self/status", recorded("self_status"));
  rig.host.WriteProcFile("stat", recorded("stat.0"));
  rig.host.WriteProcFile("self/stat", SelfStat(0, 0));
  auto monitor = rig.Make();
  rig.Step(*monitor);
  rig.host.WriteProcFile("stat", recorded("stat.1"));
  rig.host.WriteProcFile("self/stat", SelfStat(101, 0));
  rig.Step(*monitor);
  LoadReport r = monitor->Snapshot();
  // Both CPUs were busy every tick of the 202; the process had half.
  CHECK(r.cpu_used_rate == 100);
  CHECK(r.process_cpu_used_rate == 50);
}

TEST_CASE("a change of the allowed CPUs inside the window gives -1",
          "[monitor]") {
  MonitorRig rig;
  rig.options.slide_window_size = 1;
  rig.host.WriteProcFile("stat",
                         "cpu0 100 0 0 100 0 0 0 0 0 0\n"
                         "cpu1 100 0 0 100 0 0 0 0 0 0\n");
  rig.host.WriteProcFile("self/status", "Cpus_allowed_list:\t0-1\n");
  auto monitor = rig.Make();
  rig.Step(*monitor);
  rig.host.WriteProcFile("stat",
                         "cpu0 150 0 0 150 0 0 0 0 0 0\n"
                         "cpu1 150 0 0 150 0 0 0 0 0 0\n");
  rig.host.WriteProcFile("self/status", "Cpus_allowed_list:\t1\n");
  rig.Step(*monitor);
  CHECK(monitor->Snapshot().cpu_used_rate == -1);
  rig.host.WriteProcFile("stat",
                         "cpu0 200 0 0 200 0 0 0 0 0 0\n"
                         "cpu1 200 0 0 200 0 0 0 0 0 0\n");
  rig.Step(*monitor);
  CHECK(monitor->Snapshot().cpu_used_rate == 50);
}

}  // namespace
}  // namespace bk::monitor
