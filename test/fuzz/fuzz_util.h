// Helpers shared by the fuzz targets: a byte reader that never fails (like
// libFuzzer's FuzzedDataProvider, which gcc builds do not have) and a
// scratch file per process for readers that take a path.

#ifndef BK_TEST_FUZZ_FUZZ_UTIL_H_
#define BK_TEST_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace bk::fuzz {

// Consumes bytes from the front; returns zeros once empty.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint64_t Int(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | Byte();
    return v;
  }
  uint8_t Byte() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  std::string Take(size_t max) {
    const size_t k = max < n_ ? max : n_;
    std::string s(reinterpret_cast<const char*>(p_), k);
    p_ += k;
    n_ -= k;
    return s;
  }
  std::string Rest() { return Take(n_); }
  size_t left() const { return n_; }

 private:
  const uint8_t* p_;
  size_t n_;
};

// A directory private to this process, made on first use and removed at
// exit. The name is never destroyed: the atexit handler is registered
// before a static string's destructor would be, so it would run after it
// (a use after free that ASan reports when libFuzzer exits).
inline const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    auto* d = new std::string(std::filesystem::temp_directory_path().string() +
                              "/bkfuzz." + std::to_string(getpid()));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }();
  return *dir;
}

// Writes `bytes` to <scratch>/<name> and returns the path.
inline std::string WriteScratch(const std::string& name,
                                const std::string& bytes) {
  const std::string path = ScratchDir() + "/" + name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// An invariant of the code under test broke: abort so the fuzzer keeps the
// input.
#define BK_FUZZ_CHECK(cond)                                                 \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                  \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

}  // namespace bk::fuzz

#endif  // BK_TEST_FUZZ_FUZZ_UTIL_H_
