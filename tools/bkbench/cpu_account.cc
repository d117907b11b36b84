#include "tools/bkbench/cpu_account.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "monitor/cpu_stat.h"
#include "monitor/read_file.h"

namespace bk::bkbench {

CpuSnapshot TakeCpuSnapshot(const std::vector<pid_t>& pids,
                            const std::string& proc_root) {
  CpuSnapshot s;
  s.at = absl::Now();
  if (auto t = monitor::ReadProcessTicks(proc_root); t.ok()) {
    s.self_ticks = static_cast<int64_t>(*t);
  }
  s.pids = pids;
  for (pid_t p : pids) {
    auto text =
        monitor::ReadSmallFile(absl::StrCat(proc_root, "/", p, "/stat"));
    auto t = text.ok() ? monitor::ParseProcessTicks(*text)
                       : absl::StatusOr<uint64_t>(text.status());
    s.pid_ticks.push_back(t.ok() ? static_cast<int64_t>(*t) : -1);
  }
  if (auto m = monitor::ReadAllowedCpuTicks(proc_root); m.ok()) {
    s.machine_busy_ticks = static_cast<int64_t>(m->busy);
    s.machine_total_ticks = static_cast<int64_t>(m->total);
    s.cpus = static_cast<int>(m->cpus.size());
  }
  return s;
}

CpuUse CpuBetween(const CpuSnapshot& a, const CpuSnapshot& b) {
  static const double kTick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  CpuUse u;
  u.wall_s = absl::ToDoubleSeconds(b.at - a.at);
  if (a.self_ticks >= 0 && b.self_ticks >= 0) {
    u.self_s = static_cast<double>(b.self_ticks - a.self_ticks) * kTick;
  }
  u.others_s = 0;
  for (size_t i = 0; i < a.pids.size() && i < b.pids.size(); ++i) {
    double s = 0;
    if (a.pids[i] == b.pids[i] && a.pid_ticks[i] >= 0 && b.pid_ticks[i] >= 0) {
      s = static_cast<double>(b.pid_ticks[i] - a.pid_ticks[i]) * kTick;
    }
    u.per_pid_s.push_back(s);
    u.others_s += s;
  }
  if (a.machine_busy_ticks >= 0 && b.machine_busy_ticks >= 0) {
    u.machine_s =
        static_cast<double>(b.machine_busy_ticks - a.machine_busy_ticks) *
        kTick;
  }
  u.cpus = b.cpus;
  return u;
}

}  // namespace bk::bkbench
