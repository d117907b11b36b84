// Block-device resolution: which physical disks hold a directory.
//
//   dir --stat()--> st_dev (major:minor)
//       --> <sys_root>/dev/block/<major>:<minor>  (symlink into /sys/devices)
//       --> a partition (has a `partition` file)  -> its parent, the disk
//       --> a stacked device (non-empty `slaves/`, e.g. device-mapper, md)
//           -> each slave, resolved the same way, down to the disks
//       --> a disk: its kernel name, as /proc/diskstats names it.
//
// A filesystem with no block device (tmpfs, overlay, NFS, and btrfs, whose
// st_dev is an anonymous 0:N number) resolves to no disks; the monitor then
// falls back to the bookie's own busy share.

#ifndef BK_MONITOR_BLOCK_DEVICE_H_
#define BK_MONITOR_BLOCK_DEVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::monitor {

// How deep slaves/ may nest before resolution gives up (dm over md over
// partitions is 3).
inline constexpr int kMaxBlockDeviceDepth = 16;

struct DeviceNumber {
  uint32_t major = 0;
  uint32_t minor = 0;
};

// The device number of the filesystem that holds `path`. kNotFound when
// `path` does not exist.
absl::StatusOr<DeviceNumber> DeviceNumberOf(const std::string& path);

// Kernel names of the physical disks behind device `dev`, sorted, without
// duplicates; empty when `dev` is not a block device known to sysfs under
// `sys_root`. kFailedPrecondition when slaves/ nest deeper than
// kMaxBlockDeviceDepth (a loop in a corrupt tree).
absl::StatusOr<std::vector<std::string>> DisksOfDevice(
    const std::string& sys_root, DeviceNumber dev);

// DisksOfDevice(sys_root, DeviceNumberOf(path)).
absl::StatusOr<std::vector<std::string>> DisksOfPath(
    const std::string& sys_root, const std::string& path);

// Whether the filesystems on devices `a` and `b` share a disk: their disks
// meet (partitions of one disk, device-mapper over it). Where either has no
// disk (tmpfs, overlay, btrfs), whether they are the same device. An error
// resolving either counts as sharing.
bool DevicesShareDisk(const std::string& sys_root, DeviceNumber a,
                      DeviceNumber b);

// Whether `path` shares a disk with any of `others` (DevicesShareDisk). A
// path that does not exist yet is taken at its nearest existing parent; one
// that cannot be resolved at all counts as sharing.
bool PathSharesDisk(const std::string& sys_root, const std::string& path,
                    const std::vector<std::string>& others);

}  // namespace bk::monitor

#endif  // BK_MONITOR_BLOCK_DEVICE_H_
