#include "monitor/cpu_stat.h"

#include <algorithm>
#include <array>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "monitor/process_stats.h"
#include "monitor/read_file.h"

namespace bk::monitor {
namespace {

absl::Status BadCpuList(absl::string_view list) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed cpu list '", list, "'"));
}

}  // namespace

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view list) {
  std::vector<int> cpus;
  absl::string_view trimmed = absl::StripAsciiWhitespace(list);
  if (trimmed.empty()) return BadCpuList(list);
  for (absl::string_view part : absl::StrSplit(trimmed, ',')) {
    std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int lo = 0;
    int hi = 0;
    if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &lo) ||
        !absl::SimpleAtoi(ends.back(), &hi) || lo < 0 || hi < lo ||
        hi >= kMaxCpus) {
      return BadCpuList(list);
    }
    for (int cpu = lo; cpu <= hi; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

absl::StatusOr<std::vector<int>> ParseCpusAllowedList(
    absl::string_view status_text) {
  for (absl::string_view line : absl::StrSplit(status_text, '\n')) {
    if (absl::ConsumePrefix(&line, "Cpus_allowed_list:")) {
      return ParseCpuList(line);
    }
  }
  return absl::NotFoundError("no Cpus_allowed_list in status");
}

absl::StatusOr<CpuTicks> ParseProcStat(absl::string_view stat_text,
                                       const std::vector<int>& allowed) {
  absl::flat_hash_set<int> wanted(allowed.begin(), allowed.end());
  CpuTicks sum;
  for (absl::string_view line : absl::StrSplit(stat_text, '\n')) {
    // "cpuN ..." lines; the aggregate "cpu " line has no number.
    if (!absl::StartsWith(line, "cpu")) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    absl::string_view name = fields[0];
    name.remove_prefix(3);
    int cpu = 0;
    if (name.empty() || !absl::SimpleAtoi(name, &cpu)) continue;
    if (!wanted.contains(cpu)) continue;
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    std::array<uint64_t, 8> v{};
    if (fields.size() < 1 + v.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("short /proc/stat line '", line, "'"));
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!absl::SimpleAtoi(fields[1 + i], &v[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("malformed /proc/stat line '", line, "'"));
      }
    }
    uint64_t total = 0;
    for (uint64_t x : v) total += x;
    const uint64_t idle = v[3] + v[4];
    sum.total += total;
    sum.busy += total - idle;
    sum.cpus.push_back(cpu);
  }
  if (sum.cpus.empty()) {
    return absl::NotFoundError("none of the allowed CPUs is in /proc/stat");
  }
  std::sort(sum.cpus.begin(), sum.cpus.end());
  return sum;
}

absl::StatusOr<uint64_t> ParseProcessTicks(absl::string_view pid_stat_text) {
  absl::StatusOr<ProcessStatFields> f = ParseProcessStatFields(pid_stat_text);
  if (!f.ok()) return f.status();
  return f->cpu_ticks;
}

absl::StatusOr<CpuTicks> ReadAllowedCpuTicks(const std::string& proc_root) {
  absl::StatusOr<std::string> status =
      ReadSmallFile(proc_root + "/self/status");
  if (!status.ok()) return status.status();
  absl::StatusOr<std::vector<int>> allowed = ParseCpusAllowedList(*status);
  if (!allowed.ok()) return allowed.status();
  absl::StatusOr<std::string> stat = ReadSmallFile(proc_root + "/stat");
  if (!stat.ok()) return stat.status();
  return ParseProcStat(*stat, *allowed);
}

absl::StatusOr<uint64_t> ReadProcessTicks(const std::string& proc_root) {
  absl::StatusOr<std::string> stat = ReadSmallFile(proc_root + "/self/stat");
  if (!stat.ok()) return stat.status();
  return ParseProcessTicks(*stat);
}

}  // namespace bk::monitor
