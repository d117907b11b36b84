#include "tools/bkbench/run_cpu.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/bkbench/bookie_sampler.h"

namespace bk::bkbench {

RunCpuSnapshot TakeRunCpu(const std::vector<std::string>& bookie_http) {
  RunCpuSnapshot s;
  for (const std::string& http : bookie_http) {
    auto text = http.empty() ? absl::StatusOr<std::string>(
                                   absl::NotFoundError("no HTTP endpoint"))
                             : HttpGetBody(http, "/metrics");
    const double v =
        text.ok() ? SumMetric(*text, "process_cpu_seconds_total") : -1;
    s.answered.push_back(v >= 0);
    if (v >= 0) s.bookies_s += v;
  }
  s.local = TakeCpuSnapshot({});
  return s;
}

RunCpu RunCpuBetween(const RunCpuSnapshot& a, const RunCpuSnapshot& b) {
  const CpuUse local = CpuBetween(a.local, b.local);
  RunCpu r;
  r.wall_s = local.wall_s;
  r.client_s = local.self_s;
  r.machine_s = local.machine_s;
  r.cpus = local.cpus;
  const size_t n = std::min(a.answered.size(), b.answered.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.answered[i] && b.answered[i]) ++r.bookies;
  }
  const bool all = a.answered.size() == b.answered.size() && n > 0 &&
                   r.bookies == static_cast<int>(n);
  if (all) r.bookies_s = b.bookies_s - a.bookies_s;
  return r;
}

namespace {

double PerEntry(double seconds, double entries) {
  return seconds >= 0 && entries > 0 ? seconds * 1e6 / entries : -1;
}

std::string Us(double us) {
  return us < 0 ? std::string("unknown") : absl::StrFormat("%.1f us", us);
}

}  // namespace

double RunCpu::ClientUsPerEntry(double entries) const {
  return PerEntry(client_s, entries);
}
double RunCpu::BookiesUsPerEntry(double entries) const {
  return PerEntry(bookies_s, entries);
}
double RunCpu::MachineUsPerEntry(double entries) const {
  return PerEntry(machine_s, entries);
}
double RunCpu::MachineBusyPercent() const {
  return machine_s >= 0 && wall_s > 0 && cpus > 0
             ? 100 * machine_s / (wall_s * cpus)
             : -1;
}

std::string DescribeRunCpu(const RunCpu& cpu, double entries, int replicas,
                           double echo_us_per_entry) {
  const double bookies = cpu.BookiesUsPerEntry(entries);
  std::string out =
      absl::StrCat("CPU per entry: client ", Us(cpu.ClientUsPerEntry(entries)),
                   ", bookies ", Us(bookies));
  if (bookies >= 0 && replicas > 0) {
    absl::StrAppend(&out, " (", Us(bookies / replicas), " per replica-add, ",
                    cpu.bookies, " bookies)");
  }
  absl::StrAppend(&out, ", machine ", Us(cpu.MachineUsPerEntry(entries)));
  if (cpu.MachineBusyPercent() >= 0) {
    absl::StrAppend(&out, absl::StrFormat(", %d CPUs %.0f%% busy", cpu.cpus,
                                          cpu.MachineBusyPercent()));
  }
  if (echo_us_per_entry > 0) {
    absl::StrAppend(&out, "; the echo ceiling ", Us(echo_us_per_entry),
                    " (client and echo servers)");
  }
  return out;
}

}  // namespace bk::bkbench
