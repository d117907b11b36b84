#include "tools/bkbench/machine_sampler.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "monitor/cpu_stat.h"
#include "monitor/read_file.h"

namespace bk::bkbench {
namespace {

// Share of `interval` that a counter delta of `delta_us` microseconds is;
// -1 when either end is unknown.
double StallPct(int64_t before_us, int64_t after_us, absl::Duration interval) {
  if (before_us < 0 || after_us < before_us) return -1;
  const double wall_us = absl::ToDoubleMicroseconds(interval);
  if (wall_us <= 0) return -1;
  return std::min(100.0,
                  100.0 * static_cast<double>(after_us - before_us) / wall_us);
}

}  // namespace

int64_t ParsePressureSomeTotalUs(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "some ")) continue;
    for (absl::string_view field : absl::StrSplit(line, ' ')) {
      int64_t v;
      if (absl::ConsumePrefix(&field, "total=") &&
          absl::SimpleAtoi(field, &v) && v >= 0) {
        return v;
      }
    }
  }
  return -1;
}

MachineSummary Summarise(const std::vector<MachinePoint>& points) {
  MachineSummary s;
  double busy = 0, cpu = 0, io = 0;
  int n_busy = 0, n_cpu = 0, n_io = 0;
  for (const MachinePoint& p : points) {
    if (p.cpu_busy_pct >= 0) busy += p.cpu_busy_pct, ++n_busy;
    if (p.cpu_stall_pct >= 0) {
      cpu += p.cpu_stall_pct, ++n_cpu;
      s.cpu_stall_max = std::max(s.cpu_stall_max, p.cpu_stall_pct);
    }
    if (p.io_stall_pct >= 0) io += p.io_stall_pct, ++n_io;
  }
  if (n_busy > 0) s.cpu_busy_mean = busy / n_busy;
  if (n_cpu > 0) s.cpu_stall_mean = cpu / n_cpu;
  if (n_io > 0) s.io_stall_mean = io / n_io;
  return s;
}

MachineSampler::MachineSampler(std::string proc_root)
    : proc_root_(std::move(proc_root)) {}

MachineSampler::~MachineSampler() { Stop(); }

MachineSampler::Counters MachineSampler::Read() const {
  Counters c;
  c.at = absl::Now();
  if (auto ticks = monitor::ReadAllowedCpuTicks(proc_root_); ticks.ok()) {
    c.cpu_busy = static_cast<int64_t>(ticks->busy);
    c.cpu_total = static_cast<int64_t>(ticks->total);
  }
  if (auto t = monitor::ReadSmallFile(proc_root_ + "/pressure/cpu"); t.ok()) {
    c.cpu_stall_us = ParsePressureSomeTotalUs(*t);
  }
  if (auto t = monitor::ReadSmallFile(proc_root_ + "/pressure/io"); t.ok()) {
    c.io_stall_us = ParsePressureSomeTotalUs(*t);
  }
  return c;
}

void MachineSampler::Start(absl::Time run_start) {
  run_start_ = run_start;
  thread_ = std::thread([this] {
    Counters last = Read();
    absl::Time next = run_start_ + absl::Seconds(1);
    while (!stop_.load()) {
      while (!stop_.load() && absl::Now() < next) {
        absl::SleepFor(std::min(absl::Milliseconds(50), next - absl::Now()));
      }
      if (stop_.load()) break;
      const Counters now = Read();
      MachinePoint p;
      p.t_s = absl::ToDoubleSeconds(now.at - run_start_);
      if (last.cpu_total >= 0 && now.cpu_total > last.cpu_total) {
        p.cpu_busy_pct = 100.0 *
                         static_cast<double>(now.cpu_busy - last.cpu_busy) /
                         static_cast<double>(now.cpu_total - last.cpu_total);
      }
      p.cpu_stall_pct =
          StallPct(last.cpu_stall_us, now.cpu_stall_us, now.at - last.at);
      p.io_stall_pct =
          StallPct(last.io_stall_us, now.io_stall_us, now.at - last.at);
      points_.push_back(p);
      last = now;
      next += absl::Seconds(1);
    }
  });
}

void MachineSampler::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
}

}  // namespace bk::bkbench
