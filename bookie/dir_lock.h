// DirLock: an exclusive, advisory lock on a bookie directory, held by the
// process that uses it (the daemon, from before its cookie check until it
// exits; `bookie format` while it wipes).
//
// The lock is flock(2) on <dir>/LOCK, which holds the owner's pid as text
// for messages. The kernel drops it when the process dies, however it dies,
// so a held lock always means a live process: nothing may override it. The
// file itself stays; it is not data (cookie checks and format skip it).
//
// Not thread-safe; one owner. Movable, not copyable.

#ifndef BK_BOOKIE_DIR_LOCK_H_
#define BK_BOOKIE_DIR_LOCK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::bookie {

inline constexpr char kLockFileName[] = "LOCK";

class DirLock {
 public:
  // Creates `dir` if missing, then takes its lock without waiting.
  // kFailedPrecondition naming the directory (and the holder's pid when
  // known) when another process holds it; other errors as the system says.
  static absl::StatusOr<DirLock> Acquire(const std::string& dir);
  // Acquire for each directory, in order; all or none.
  static absl::StatusOr<std::vector<DirLock>> AcquireAll(
      const std::vector<std::string>& dirs);

  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();  // releases the lock

  const std::string& dir() const { return dir_; }

 private:
  DirLock(std::string dir, int fd) : dir_(std::move(dir)), fd_(fd) {}

  std::string dir_;
  int fd_ = -1;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DIR_LOCK_H_
