// ResidentPages: how many of a file's pages are in the page cache now
// (mmap + mincore), for tests of code that drops pages it has synced.
// Header-only; -1 when the file cannot be mapped (empty, missing).

#ifndef BK_TEST_SUPPORT_RESIDENT_PAGES_H_
#define BK_TEST_SUPPORT_RESIDENT_PAGES_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bk::testing {

inline int64_t ResidentPages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size == 0) {
    ::close(fd);
    return -1;
  }
  const size_t len = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec((len + page - 1) / page);
  int64_t resident = -1;
  if (::mincore(map, len, vec.data()) == 0) {
    resident = 0;
    for (unsigned char v : vec) resident += v & 1;
  }
  ::munmap(map, len);
  return resident;
}

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_RESIDENT_PAGES_H_
