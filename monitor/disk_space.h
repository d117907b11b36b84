// Free and total space of the filesystems that hold a set of directories,
// each filesystem counted once however many of the dirs it holds.

#ifndef BK_MONITOR_DISK_SPACE_H_
#define BK_MONITOR_DISK_SPACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::monitor {

// One filesystem as seen from a directory.
struct FsUsage {
  uint64_t fs_id = 0;       // st_dev: equal for dirs on one filesystem
  int64_t free_bytes = 0;   // available to unprivileged users (f_bavail)
  int64_t total_bytes = 0;  // f_blocks * f_frsize
};

// Looks up the filesystem of a directory. Must be safe to call from the
// monitor's sampling thread.
using FsProbe = std::function<absl::StatusOr<FsUsage>(const std::string&)>;

// stat() + statvfs(). kNotFound when the dir does not exist.
absl::StatusOr<FsUsage> ProbeFilesystem(const std::string& dir);

struct DiskSpace {
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
};

// Sums free and total over the distinct filesystems of `dirs`. The first
// probe error is returned. An empty `dirs` sums to zero.
absl::StatusOr<DiskSpace> SumDiskSpace(const std::vector<std::string>& dirs,
                                       const FsProbe& probe);

}  // namespace bk::monitor

#endif  // BK_MONITOR_DISK_SPACE_H_
