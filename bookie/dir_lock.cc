#include "bookie/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace bk::bookie {
namespace {

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// The pid recorded in the lock file, as text for a message ("" if none).
std::string Holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "";
  int pid;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(buf), &pid)) return "";
  return absl::StrCat(" (pid ", pid, ")");
}

}  // namespace

absl::StatusOr<DirLock> DirLock::Acquire(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  const std::string path = absl::StrCat(dir, "/", kLockFileName);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(absl::StrCat("cannot open ", path));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = Holder(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          dir, " is in use by a running bookie", holder, ": stop it first"));
    }
    errno = err;
    return Errno(absl::StrCat("cannot lock ", path));
  }
  const std::string pid = absl::StrCat(::getpid(), "\n");
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) !=
                                     static_cast<ssize_t>(pid.size())) {
    absl::Status s = Errno(absl::StrCat("cannot write ", path));
    ::close(fd);
    return s;
  }
  return DirLock(dir, fd);
}

absl::StatusOr<std::vector<DirLock>> DirLock::AcquireAll(
    const std::vector<std::string>& dirs) {
  // One lock per directory even when it is listed twice (journal and
  // ledgers in one directory): a second flock of the same file from this
  // process would fail.
  std::set<std::string> unique;
  for (const std::string& dir : dirs) {
    std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
    if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();  // "d/"
    unique.insert(p.string());
  }
  std::vector<DirLock> locks;
  for (const std::string& dir : unique) {
    auto lock = Acquire(dir);
    if (!lock.ok()) return lock.status();  // the others are released
    locks.push_back(*std::move(lock));
  }
  return locks;
}

DirLock::DirLock(DirLock&& other) noexcept
    : dir_(std::move(other.dir_)), fd_(std::exchange(other.fd_, -1)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    dir_ = std::move(other.dir_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor unlocks
}

}  // namespace bk::bookie
