#include "monitor/block_device.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace bk::monitor {
namespace {

namespace fs = std::filesystem;

// Appends the disks behind the sysfs device directory `dir` to `out`.
absl::Status Resolve(const fs::path& dir, int depth,
                     std::vector<std::string>* out) {
  if (depth > kMaxBlockDeviceDepth) {
    return absl::FailedPreconditionError(
        absl::StrCat("block device nesting deeper than ", kMaxBlockDeviceDepth,
                     " at ", dir.string()));
  }
  std::error_code ec;
  fs::path device = dir;
  // A partition lives inside its disk's directory: sda/sda1/partition.
  if (fs::exists(device / "partition", ec)) device = device.parent_path();

  std::vector<fs::path> slaves;
  for (const auto& entry : fs::directory_iterator(device / "slaves", ec)) {
    slaves.push_back(entry.path());
  }
  // ec set: no slaves/ directory at all, which is a plain disk.
  if (slaves.empty()) {
    out->push_back(device.filename().string());
    return absl::OkStatus();
  }
  for (const fs::path& slave : slaves) {
    fs::path target = fs::canonical(slave, ec);
    // A slave that vanished while we looked (device being torn down).
    if (ec) continue;
    absl::Status s = Resolve(target, depth + 1, out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceNumber> DeviceNumberOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    std::string message = absl::StrCat("stat ", path, ": ", strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
    return absl::InternalError(message);
  }
  return DeviceNumber{major(st.st_dev), minor(st.st_dev)};
}

absl::StatusOr<std::vector<std::string>> DisksOfDevice(
    const std::string& sys_root, DeviceNumber dev) {
  std::vector<std::string> disks;
  fs::path link = fs::path(sys_root) / "dev" / "block" /
                  absl::StrCat(dev.major, ":", dev.minor);
  std::error_code ec;
  fs::path dir = fs::canonical(link, ec);
  // Not in sysfs: anonymous device numbers (tmpfs, overlay, btrfs, NFS).
  if (ec) return disks;
  absl::Status s = Resolve(dir, 0, &disks);
  if (!s.ok()) return s;
  std::sort(disks.begin(), disks.end());
  disks.erase(std::unique(disks.begin(), disks.end()), disks.end());
  return disks;
}

absl::StatusOr<std::vector<std::string>> DisksOfPath(
    const std::string& sys_root, const std::string& path) {
  absl::StatusOr<DeviceNumber> dev = DeviceNumberOf(path);
  if (!dev.ok()) return dev.status();
  return DisksOfDevice(sys_root, *dev);
}

bool DevicesShareDisk(const std::string& sys_root, DeviceNumber a,
                      DeviceNumber b) {
  if (a.major == b.major && a.minor == b.minor) return true;
  auto disks_a = DisksOfDevice(sys_root, a);
  auto disks_b = DisksOfDevice(sys_root, b);
  if (!disks_a.ok() || !disks_b.ok()) return true;
  // No disk behind one of them, and not the same device: apart.
  if (disks_a->empty() || disks_b->empty()) return false;
  // Both sorted.
  std::vector<std::string> both;
  std::set_intersection(disks_a->begin(), disks_a->end(), disks_b->begin(),
                        disks_b->end(), std::back_inserter(both));
  return !both.empty();
}

namespace {

// The device of `path`, or of its nearest existing parent.
std::optional<DeviceNumber> NearestDevice(std::string path) {
  for (int depth = 0; depth < 256; ++depth) {
    absl::StatusOr<DeviceNumber> dev =
        DeviceNumberOf(path.empty() ? "." : path);
    if (dev.ok()) return *dev;
    if (!absl::IsNotFound(dev.status()) || path.empty() || path == "/") break;
    const size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? ""
           : slash == 0               ? "/"
                                      : path.substr(0, slash);
  }
  return std::nullopt;
}

}  // namespace

bool PathSharesDisk(const std::string& sys_root, const std::string& path,
                    const std::vector<std::string>& others) {
  const std::optional<DeviceNumber> mine = NearestDevice(path);
  if (!mine.has_value()) return true;
  for (const std::string& other : others) {
    const std::optional<DeviceNumber> theirs = NearestDevice(other);
    if (!theirs.has_value() || DevicesShareDisk(sys_root, *mine, *theirs)) {
      return true;
    }
  }
  return false;
}

}  // namespace bk::monitor
