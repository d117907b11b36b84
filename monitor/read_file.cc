#include "monitor/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace bk::monitor {
namespace {

absl::Status ErrnoStatus(int err, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("open ", path));

  std::string out;
  char buf[8192];
  absl::Status status;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      status = ErrnoStatus(errno, absl::StrCat("read ", path));
      break;
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > kMaxKernelFileBytes) {
      status = absl::ResourceExhaustedError(
          absl::StrCat(path, " is larger than ", kMaxKernelFileBytes));
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!status.ok()) return status;
  return out;
}

}  // namespace bk::monitor
