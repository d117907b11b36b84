#include "common/measure.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace bk::measure {
namespace {

// The error of the failed call `what` on `path`, from errno (EIO for a
// short write, which leaves errno alone).
absl::Status IoError(const std::string& what, const std::string& path) {
  const int e = errno;
  return absl::ErrnoToStatus(e != 0 ? e : EIO, absl::StrCat(what, " ", path));
}

}  // namespace

absl::StatusOr<Ceiling> MeasureCeiling(const std::string& dir,
                                       size_t group_bytes, double seconds,
                                       bool direct, bool append) {
  const std::string path = dir + "/ceiling.dat";
  constexpr size_t kAlign = 4096;
  if (direct) group_bytes = (group_bytes + kAlign - 1) / kAlign * kAlign;
  int fd = ::open(path.c_str(),
                  O_CREAT | O_TRUNC | O_WRONLY | (direct ? O_DIRECT : 0), 0644);
  if (fd < 0 && direct && errno == EINVAL) {
    ::unlink(path.c_str());
    return Ceiling{};
  }
  if (fd < 0) return IoError("open", path);
  // An I/O error ends the measurement: the file goes, errno is kept.
  auto fail = [&](const char* what) {
    absl::Status s = IoError(what, path);
    ::close(fd);
    ::unlink(path.c_str());
    return s;
  };
  const off_t span = off_t{256} << 20;
  constexpr off_t kAppendStep = off_t{16} << 20;  // journalPreAllocSizeMB
  off_t reserved = 0;  // append: reserved ahead of the writes, size kept
  if (!append && ::fallocate(fd, 0, 0, span) != 0) {
    // tmpfs and a few others cannot preallocate; the writes then extend.
  }
  ::fdatasync(fd);
  std::unique_ptr<char, decltype(&std::free)> mem(
      static_cast<char*>(std::aligned_alloc(kAlign, group_bytes + kAlign)),
      &std::free);
  std::memset(mem.get(), 'c', group_bytes);
  const std::string_view buf(mem.get(), group_bytes);
  std::vector<double> small;
  off_t off = 0;
  for (int i = 0; i < 50; ++i) {
    auto t0 = Clock::now();
    if (::pwrite(fd, buf.data(), 4096, off) != 4096 || ::fdatasync(fd) != 0) {
      return fail("pwrite/fdatasync");
    }
    small.push_back(Seconds(Clock::now() - t0) * 1e3);
    off += 4096;
  }
  uint64_t groups = 0;
  const auto start = Clock::now();
  while (Seconds(Clock::now() - start) < seconds) {
    if (append && off + static_cast<off_t>(group_bytes) > reserved) {
      // As the journal: KEEP_SIZE reservations ahead of the end (errors
      // ignored, as there: only an optimisation).
      ::fallocate(fd, FALLOC_FL_KEEP_SIZE, off, kAppendStep);
      reserved = off + kAppendStep;
    }
    if (!append && off + static_cast<off_t>(group_bytes) > span) off = 0;
    if (::pwrite(fd, buf.data(), buf.size(), off) !=
            static_cast<ssize_t>(buf.size()) ||
        ::fdatasync(fd) != 0) {
      return fail("pwrite/fdatasync");
    }
    off += static_cast<off_t>(buf.size());
    ++groups;
  }
  const double el = Seconds(Clock::now() - start);
  ::close(fd);
  ::unlink(path.c_str());
  Ceiling c;
  c.groups_per_s = groups / el;
  c.mb_per_s = groups * static_cast<double>(group_bytes) / el / 1e6;
  std::vector<double> s = small;
  c.small_sync_ms = Percentile(&s, 0.5);
  return c;
}

const char* Regime(double small_sync_ms) {
  return small_sync_ms < 1.5 ? "fast (~0.3 ms fdatasync)"
                             : "slow (~4 ms fdatasync)";
}

double Percentile(std::vector<double>* v, double p) {
  if (v->empty()) return 0;
  std::sort(v->begin(), v->end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v->size() - 1));
  return (*v)[i];
}

double CpuSeconds() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

}  // namespace bk::measure
