#include "monitor/process_stats.h"

#include <dirent.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "monitor/read_file.h"

namespace bk::monitor {
namespace {

// Entries of `dir` other than "." and "..", or -1 when it cannot be read.
// Reading /proc/self/fd opens one descriptor of its own, which is counted:
// Prometheus' collectors count the same way.
double CountEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  double n = 0;
  while (const dirent* e = readdir(d)) {
    const absl::string_view name = e->d_name;
    if (name != "." && name != "..") ++n;
  }
  closedir(d);
  return n;
}

}  // namespace

absl::StatusOr<ProcessStatFields> ParseProcessStatFields(
    absl::string_view pid_stat_text) {
  // "pid (comm) state ppid ...": the name ends at the last ')'.
  const size_t close = pid_stat_text.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError("malformed process stat: no ')'");
  }
  std::vector<absl::string_view> f =
      absl::StrSplit(pid_stat_text.substr(close + 1), absl::ByAnyChar(" \n"),
                     absl::SkipEmpty());
  // f[0] is field 3 (state): field N is f[N - 3].
  auto field = [&f](size_t n, uint64_t* out) {
    return f.size() > n - 3 && absl::SimpleAtoi(f[n - 3], out);
  };
  ProcessStatFields p;
  uint64_t utime = 0;
  uint64_t stime = 0;
  if (!field(14, &utime) || !field(15, &stime) || !field(20, &p.threads) ||
      !field(22, &p.start_ticks) || !field(23, &p.vsize_bytes) ||
      !field(24, &p.rss_pages)) {
    return absl::InvalidArgumentError("malformed process stat");
  }
  p.cpu_ticks = utime + stime;
  return p;
}

absl::StatusOr<uint64_t> ParseBootTime(absl::string_view stat_text) {
  for (absl::string_view line : absl::StrSplit(stat_text, '\n')) {
    if (!absl::ConsumePrefix(&line, "btime ")) continue;
    uint64_t t = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &t)) {
      return absl::InvalidArgumentError("malformed btime line");
    }
    return t;
  }
  return absl::NotFoundError("no btime line in stat");
}

absl::StatusOr<int64_t> ParseMaxOpenFiles(absl::string_view limits_text) {
  for (absl::string_view line : absl::StrSplit(limits_text, '\n')) {
    if (!absl::ConsumePrefix(&line, "Max open files")) continue;
    std::vector<absl::string_view> w =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (w.empty()) break;
    if (w[0] == "unlimited") return -1;
    int64_t n = 0;
    if (!absl::SimpleAtoi(w[0], &n)) {
      return absl::InvalidArgumentError("malformed Max open files line");
    }
    return n;
  }
  return absl::NotFoundError("no Max open files line in limits");
}

ProcessStats ReadProcessStats(const std::string& proc_root) {
  ProcessStats s;
  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);
  absl::StatusOr<std::string> text = ReadSmallFile(proc_root + "/self/stat");
  absl::StatusOr<ProcessStatFields> f =
      text.ok() ? ParseProcessStatFields(*text) : text.status();
  if (f.ok() && ticks_per_s > 0 && page > 0) {
    const double hz = static_cast<double>(ticks_per_s);
    s.cpu_seconds = static_cast<double>(f->cpu_ticks) / hz;
    s.threads = static_cast<double>(f->threads);
    s.virtual_bytes = static_cast<double>(f->vsize_bytes);
    s.resident_bytes =
        static_cast<double>(f->rss_pages) * static_cast<double>(page);
    absl::StatusOr<std::string> stat = ReadSmallFile(proc_root + "/stat");
    absl::StatusOr<uint64_t> boot =
        stat.ok() ? ParseBootTime(*stat) : stat.status();
    if (boot.ok()) {
      s.start_time_seconds =
          static_cast<double>(*boot) + static_cast<double>(f->start_ticks) / hz;
    }
  }
  s.open_fds = CountEntries(proc_root + "/self/fd");
  absl::StatusOr<std::string> limits =
      ReadSmallFile(proc_root + "/self/limits");
  absl::StatusOr<int64_t> max =
      limits.ok() ? ParseMaxOpenFiles(*limits) : limits.status();
  if (max.ok()) s.max_fds = static_cast<double>(*max);
  return s;
}

}  // namespace bk::monitor
