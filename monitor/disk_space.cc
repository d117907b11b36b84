#include "monitor/disk_space.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace bk::monitor {
namespace {

absl::Status ErrnoStatus(int err, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::StatusOr<FsUsage> ProbeFilesystem(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return ErrnoStatus(errno, absl::StrCat("stat ", dir));
  }
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) != 0) {
    return ErrnoStatus(errno, absl::StrCat("statvfs ", dir));
  }
  FsUsage usage;
  usage.fs_id = static_cast<uint64_t>(st.st_dev);
  usage.free_bytes = static_cast<int64_t>(vfs.f_bavail * vfs.f_frsize);
  usage.total_bytes = static_cast<int64_t>(vfs.f_blocks * vfs.f_frsize);
  return usage;
}

absl::StatusOr<DiskSpace> SumDiskSpace(const std::vector<std::string>& dirs,
                                       const FsProbe& probe) {
  DiskSpace sum;
  absl::flat_hash_set<uint64_t> seen;
  for (const std::string& dir : dirs) {
    absl::StatusOr<FsUsage> usage = probe(dir);
    if (!usage.ok()) return usage.status();
    if (!seen.insert(usage->fs_id).second) continue;
    sum.free_bytes += usage->free_bytes;
    sum.total_bytes += usage->total_bytes;
  }
  return sum;
}

}  // namespace bk::monitor
