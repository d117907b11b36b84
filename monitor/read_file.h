// Reading small kernel files (procfs, sysfs) whole.

#ifndef BK_MONITOR_READ_FILE_H_
#define BK_MONITOR_READ_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace bk::monitor {

// Upper bound on what ReadSmallFile returns; /proc/stat on a 1024-CPU host is
// well under this.
inline constexpr size_t kMaxKernelFileBytes = 4 << 20;

// Returns the contents of `path`. Works on procfs files (whose size reads as
// 0). kNotFound when the file does not exist, kResourceExhausted above
// kMaxKernelFileBytes, kInternal for other read errors.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path);

}  // namespace bk::monitor

#endif  // BK_MONITOR_READ_FILE_H_
