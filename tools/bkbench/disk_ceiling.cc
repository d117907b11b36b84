#include "tools/bkbench/disk_ceiling.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace bk::bkbench {
namespace {

constexpr size_t kBlock = 1 << 20;

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Spread(const std::vector<double>& v) {
  if (v.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return absl::StrFormat("%.0f (%.0f-%.0f)", Median(v), *lo, *hi);
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// One round: write then read `mb` blocks of `path`; MiB/s of each.
absl::Status Round(const std::string& path, int mb, bool direct, char* block,
                   double* write_mbs, double* read_mbs) {
  const int flags = direct ? O_DIRECT : 0;
  int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | flags, 0600);
  if (fd < 0) return Errno("open", path);
  absl::Time t0 = absl::Now();
  for (int i = 0; i < mb; ++i) {
    if (::pwrite(fd, block, kBlock, static_cast<off_t>(i) * kBlock) !=
        static_cast<ssize_t>(kBlock)) {
      absl::Status s = Errno("write", path);
      ::close(fd);
      return s;
    }
  }
  if (::fdatasync(fd) != 0) {
    absl::Status s = Errno("fdatasync", path);
    ::close(fd);
    return s;
  }
  *write_mbs = mb / absl::ToDoubleSeconds(absl::Now() - t0);
  if (!direct) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  fd = ::open(path.c_str(), O_RDONLY | flags);
  if (fd < 0) return Errno("open", path);
  t0 = absl::Now();
  for (int i = 0; i < mb; ++i) {
    if (::pread(fd, block, kBlock, static_cast<off_t>(i) * kBlock) !=
        static_cast<ssize_t>(kBlock)) {
      absl::Status s = Errno("read", path);
      ::close(fd);
      return s;
    }
  }
  *read_mbs = mb / absl::ToDoubleSeconds(absl::Now() - t0);
  ::close(fd);
  return absl::OkStatus();
}

}  // namespace

double DiskRates::write_median() const { return Median(write_mbs); }
double DiskRates::read_median() const { return Median(read_mbs); }

double DiskRates::copy_ceiling() const {
  const double w = write_median(), r = read_median();
  return w > 0 && r > 0 ? 1 / (1 / w + 1 / r) : -1;
}

std::string DiskRates::ToString() const {
  return absl::StrCat(
      "write+fdatasync ", Spread(write_mbs), " / read ", Spread(read_mbs),
      " MB/s, median (range) of ", write_mbs.size(), " rounds, ",
      direct ? "O_DIRECT (no page cache)" : "buffered (page cache possible)");
}

absl::StatusOr<DiskRates> MeasureDisk(const std::string& dir, int mb,
                                      int rounds) {
  const std::string path = dir + "/ceiling.dat";
  void* raw = nullptr;
  if (::posix_memalign(&raw, 4096, kBlock) != 0) {
    return absl::ResourceExhaustedError("no memory for the ceiling's block");
  }
  std::unique_ptr<char, FreeDeleter> block(static_cast<char*>(raw));
  // Not zeros: a device or host that shortcuts zero pages would flatter.
  for (size_t i = 0; i < kBlock; ++i) {
    block.get()[i] = static_cast<char>('a' + i * 7 % 26);
  }
  DiskRates rates;
  rates.direct = true;
  for (int r = 0; r < rounds; ++r) {
    double w = 0, rd = 0;
    absl::Status s = Round(path, mb, rates.direct, block.get(), &w, &rd);
    if (!s.ok() && rates.direct && r == 0) {
      // This filesystem may have no O_DIRECT (EINVAL at open or write).
      absl::Status buffered = Round(path, mb, false, block.get(), &w, &rd);
      if (buffered.ok()) {
        rates.direct = false;
        s = buffered;
      }
    }
    if (!s.ok()) {
      ::unlink(path.c_str());
      return s;
    }
    rates.write_mbs.push_back(w);
    rates.read_mbs.push_back(rd);
  }
  ::unlink(path.c_str());
  return rates;
}

}  // namespace bk::bkbench
