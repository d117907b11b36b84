// TempDir: a fresh directory for one test, removed with its contents when
// the object goes away. The one temporary-directory helper of the tests.
//
// Where it is made:
//  - kTmp (default): under $TMPDIR, or /tmp;
//  - kMemory: under /dev/shm when it is writable (tmpfs: syncs cost
//    nothing, so tests running hundreds of them stay fast), else as kTmp;
//  - kDisk: under /var/tmp, on the root filesystem, which offers O_DIRECT
//    (tmpfs does not).
// path() is empty when the directory could not be made.

#ifndef BK_TEST_SUPPORT_TEMP_DIR_H_
#define BK_TEST_SUPPORT_TEMP_DIR_H_

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bk::testing {

class TempDir {
 public:
  enum class Where { kTmp, kMemory, kDisk };

  explicit TempDir(Where where = Where::kTmp) {
    std::string tmpl = Base(where) + "/bktest.XXXXXX";
    char* made = mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

  // Writes `text` to Sub(relative), making the directories on the way (a
  // recorded-style /proc or /sys tree). False when it could not.
  bool WriteFile(const std::string& relative, const std::string& text) const {
    const std::filesystem::path p = Sub(relative);
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::trunc);
    out << text;
    return static_cast<bool>(out);
  }

 private:
  static std::string Base(Where where) {
    if (where == Where::kDisk) return "/var/tmp";
    if (where == Where::kMemory && access("/dev/shm", W_OK) == 0) {
      return "/dev/shm";
    }
    const char* base = getenv("TMPDIR");
    return base && *base ? base : "/tmp";
  }

  std::string path_;
};

}  // namespace bk::testing

#endif  // BK_TEST_SUPPORT_TEMP_DIR_H_
