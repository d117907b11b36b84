#include "tools/bkbench/run_disk.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "monitor/read_file.h"
#include "tools/bkbench/machine_sampler.h"

namespace bk::bkbench {

RunDiskSnapshot TakeRunDisk(const std::string& proc_root) {
  RunDiskSnapshot s;
  s.at = absl::Now();
  if (auto d = monitor::ReadDiskstats(proc_root); d.ok()) {
    s.disks = *std::move(d);
  }
  if (auto t = monitor::ReadSmallFile(proc_root + "/pressure/io"); t.ok()) {
    s.io_some_us = ParsePressureSomeTotalUs(*t);
  }
  return s;
}

RunDisk RunDiskBetween(const RunDiskSnapshot& a, const RunDiskSnapshot& b,
                       const std::vector<std::string>& disks) {
  RunDisk r;
  const double wall_s = absl::ToDoubleSeconds(b.at - a.at);
  if (wall_s <= 0) return r;
  double sectors = 0;
  for (const std::string& name : disks) {
    auto x = a.disks.find(name);
    auto y = b.disks.find(name);
    if (x == a.disks.end() || y == b.disks.end()) continue;
    r.disks.push_back(name);
    sectors += static_cast<double>(y->second.sectors_written -
                                   x->second.sectors_written);
    const double busy =
        static_cast<double>(y->second.io_ticks - x->second.io_ticks) /
        (wall_s * 10.0);  // ms over wall ms, in %
    r.busy_pct = std::max(r.busy_pct, std::min(busy, 100.0));
  }
  if (!r.disks.empty()) {
    r.written_mb_per_s = sectors *
                         static_cast<double>(monitor::kDiskstatsSectorBytes) /
                         wall_s / 1e6;
  }
  if (a.io_some_us >= 0 && b.io_some_us >= a.io_some_us) {
    r.io_stall_pct =
        static_cast<double>(b.io_some_us - a.io_some_us) / (wall_s * 1e4);
  }
  return r;
}

std::string DescribeRunDisk(const RunDisk& disk, double entries_per_second) {
  std::string out;
  if (!disk.disks.empty()) {
    out =
        absl::StrFormat("journal disk %s: %.0f MB/s written",
                        absl::StrJoin(disk.disks, "+"), disk.written_mb_per_s);
    if (entries_per_second > 0) {
      absl::StrAppendFormat(&out, " (%.1f KB per entry)",
                            disk.written_mb_per_s * 1e3 / entries_per_second);
    }
    absl::StrAppendFormat(&out, ", %.0f%% busy", disk.busy_pct);
  } else {
    out = "journal disk: not a block device sysfs knows (tmpfs, overlay)";
  }
  if (disk.io_stall_pct >= 0) {
    absl::StrAppendFormat(&out, "; some task waited for I/O %.0f%% of the time",
                          disk.io_stall_pct);
  }
  return out;
}

}  // namespace bk::bkbench
