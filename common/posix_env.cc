// The POSIX Env: plain file descriptors, pwrite/writev, fdatasync.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/env.h"

namespace bk {
namespace {

// `direct`: opened with O_DIRECT; every write must be aligned (env.h).
class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd, uint64_t size,
                    bool direct = false)
      : path_(std::move(path)), fd_(fd), direct_(direct), size_(size) {}
  ~PosixWritableFile() override {
    CloseSyncFds();
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Append(absl::string_view data) override {
    struct iovec iov {
      const_cast<char*>(data.data()), data.size()
    };
    return AppendV(&iov, 1);
  }

  absl::Status AppendV(const struct iovec* iov, int iovcnt) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    if (direct_ && !Aligned(iov, iovcnt)) {
      return Break(absl::InvalidArgumentError(absl::StrCat(
          "direct write to ", path_, " at offset ", Size(),
          " is not one buffer aligned to ", kDirectIoAlignment, " bytes")));
    }
    // writev may write less than asked; finish the rest without reordering.
    std::vector<struct iovec> rest(iov, iov + iovcnt);
    size_t first = 0;
    while (first < rest.size()) {
      const int n =
          static_cast<int>(std::min<size_t>(rest.size() - first, IOV_MAX));
      ssize_t w =
          ::pwritev(fd_, rest.data() + first, n,
                    static_cast<off_t>(size_.load(std::memory_order_relaxed)));
      if (w < 0) {
        if (errno == EINTR) continue;
        return Break(PosixError("write", path_, errno));
      }
      size_.fetch_add(static_cast<uint64_t>(w), std::memory_order_release);
      size_t left = static_cast<size_t>(w);
      while (first < rest.size() && left >= rest[first].iov_len) {
        left -= rest[first].iov_len;
        ++first;
      }
      if (left > 0) {
        rest[first].iov_base = static_cast<char*>(rest[first].iov_base) + left;
        rest[first].iov_len -= left;
      }
    }
    return absl::OkStatus();
  }

  absl::Status Sync(bool metadata) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    const int fd = AcquireSyncFd();
    int rc = metadata ? ::fsync(fd) : ::fdatasync(fd);
    const int error_number = errno;
    ReleaseSyncFd(fd);
    // Never retried: after a failed fsync the kernel may have dropped the
    // dirty pages, so a later success would prove nothing.
    if (rc != 0) return Break(PosixError("sync", path_, error_number));
    // A sync that failed meanwhile on another descriptor broke the file for
    // this one too.
    return broken();
  }

  absl::Status Writeback(uint64_t offset, uint64_t length, bool wait) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    if (fd_ < 0 || length == 0) return absl::OkStatus();
    const unsigned flags = wait ? SYNC_FILE_RANGE_WAIT_BEFORE |
                                      SYNC_FILE_RANGE_WRITE |
                                      SYNC_FILE_RANGE_WAIT_AFTER
                                : SYNC_FILE_RANGE_WRITE;
    int rc;
    do {
      rc = ::sync_file_range(fd_, static_cast<off_t>(offset),
                             static_cast<off_t>(length), flags);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0 || errno == EINVAL || errno == ESPIPE || errno == ENOSYS) {
      return absl::OkStatus();  // done, or not offered here
    }
    // A failed write-back: as after a failed sync, the dirty pages may be
    // gone, so the file is never trusted again.
    return Break(PosixError("write-back", path_, errno));
  }

  void DropCachedRange(uint64_t offset, uint64_t length) override {
    if (fd_ < 0 || length == 0) return;
    (void)::posix_fadvise(fd_, static_cast<off_t>(offset),
                          static_cast<off_t>(length), POSIX_FADV_DONTNEED);
  }

  absl::Status Preallocate(uint64_t bytes) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    int rc =
        ::fallocate(fd_, FALLOC_FL_KEEP_SIZE,
                    static_cast<off_t>(size_.load(std::memory_order_relaxed)),
                    static_cast<off_t>(bytes));
    if (rc != 0 && errno != EOPNOTSUPP && errno != ENOSYS) {
      return PosixError("fallocate", path_, errno);
    }
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (fd_ < 0) return absl::OkStatus();
    CloseSyncFds();
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return PosixError("close", path_, errno);
    return broken();
  }

  uint64_t Size() const override {
    return size_.load(std::memory_order_acquire);
  }
  const std::string& path() const override { return path_; }

 private:
  absl::Status Break(absl::Status s) {
    absl::MutexLock l(&broken_mu_);
    if (broken_.ok()) broken_ = s;
    return broken_;
  }
  absl::Status broken() const {
    absl::MutexLock l(&broken_mu_);
    return broken_;
  }

  // Syncs running at once each use a descriptor of their own: the kernel
  // reports a write-back error once per open file description
  // (errseq_t), so on a shared descriptor the sync that covered the failed
  // pages could return OK while another one took the error. The first
  // sync uses the writing descriptor; each further concurrent one opens the
  // file again, kept for later syncs. If that open fails (or finds another
  // file at the path) the sync waits for a descriptor to come back.
  static constexpr size_t kMaxSyncFds = 8;
  int AcquireSyncFd() {
    absl::MutexLock l(&sync_mu_);
    if (!sync_fd_busy_) {
      sync_fd_busy_ = true;
      return fd_;
    }
    if (idle_sync_fds_.empty() && extra_sync_fds_.size() < kMaxSyncFds) {
      const int fd = OpenSameFile();
      if (fd >= 0) {
        extra_sync_fds_.push_back(fd);
        return fd;
      }
    }
    auto available = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(sync_mu_) {
      return !sync_fd_busy_ || !idle_sync_fds_.empty();
    };
    sync_mu_.Await(absl::Condition(&available));
    if (!sync_fd_busy_) {
      sync_fd_busy_ = true;
      return fd_;
    }
    const int fd = idle_sync_fds_.back();
    idle_sync_fds_.pop_back();
    return fd;
  }
  // Another descriptor of this very file, or -1. The path is checked by
  // device and inode: a file renamed or replaced since it was opened must
  // not have a different file synced in its place.
  int OpenSameFile() const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat mine {};
    struct stat theirs {};
    if (::fstat(fd_, &mine) != 0 || ::fstat(fd, &theirs) != 0 ||
        mine.st_dev != theirs.st_dev || mine.st_ino != theirs.st_ino) {
      ::close(fd);
      return -1;
    }
    return fd;
  }
  void ReleaseSyncFd(int fd) {
    absl::MutexLock l(&sync_mu_);
    if (fd == fd_) {
      sync_fd_busy_ = false;
    } else {
      idle_sync_fds_.push_back(fd);
    }
  }
  // No sync may be running (Close's and the destructor's contract).
  void CloseSyncFds() {
    absl::MutexLock l(&sync_mu_);
    for (int fd : extra_sync_fds_) ::close(fd);
    extra_sync_fds_.clear();
    idle_sync_fds_.clear();
  }

  bool Aligned(const struct iovec* iov, int iovcnt) const {
    const auto a = static_cast<uintptr_t>(kDirectIoAlignment);
    return iovcnt == 1 &&
           reinterpret_cast<uintptr_t>(iov[0].iov_base) % a == 0 &&
           iov[0].iov_len % a == 0 && Size() % a == 0;
  }

  const std::string path_;
  int fd_;
  const bool direct_;
  std::atomic<uint64_t> size_;  // written by the appending thread only
  mutable absl::Mutex broken_mu_;
  absl::Status broken_ ABSL_GUARDED_BY(broken_mu_);  // sticky first failure
  absl::Mutex sync_mu_;
  bool sync_fd_busy_ ABSL_GUARDED_BY(sync_mu_) = false;        // fd_ in a sync
  std::vector<int> extra_sync_fds_ ABSL_GUARDED_BY(sync_mu_);  // all opened
  std::vector<int> idle_sync_fds_ ABSL_GUARDED_BY(sync_mu_);   // not in use
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  absl::StatusOr<size_t> Read(uint64_t offset, size_t n,
                              char* scratch) const override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, scratch + done, n - done,
                          static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError("read", path_, errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }

  absl::StatusOr<uint64_t> Size() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return PosixError("stat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
};

class PosixEnv final : public Env {
 public:
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("open", path, errno);
    return std::make_unique<PosixWritableFile>(path, fd, 0);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewDirectWritableFile(
      const std::string& path) override {
    int fd = ::open(path.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644);
    if (fd < 0 && errno == EINVAL) {  // e.g. tmpfs
      return absl::UnimplementedError(
          absl::StrCat("the filesystem of ", path, " refuses O_DIRECT"));
    }
    if (fd < 0) return PosixError("open (O_DIRECT)", path, errno);
    return std::make_unique<PosixWritableFile>(path, fd, 0, /*direct=*/true);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> ReopenWritableFile(
      const std::string& path, bool direct) override {
    int fd =
        ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd < 0 && direct && errno == EINVAL) {
      return absl::UnimplementedError(
          absl::StrCat("the filesystem of ", path, " refuses O_DIRECT"));
    }
    if (fd < 0) return PosixError("open (reuse)", path, errno);
    return std::make_unique<PosixWritableFile>(path, fd, 0, direct);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("open", path, errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return PosixError("stat", path, err);
    }
    return std::make_unique<PosixWritableFile>(
        path, fd, static_cast<uint64_t>(st.st_size));
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("open", path, errno);
    return std::make_unique<PosixRandomAccessFile>(path, fd);
  }

  bool FileExists(const std::string& path) override {
    return ::access(path.c_str(), F_OK) == 0;
  }

  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError("opendir", dir, errno);
    std::vector<std::string> out;
    while (struct dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
        continue;
      out.emplace_back(e->d_name);
    }
    ::closedir(d);
    return out;
  }

  absl::Status CreateDir(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return PosixError("mkdir", dir, errno);
    }
    return absl::OkStatus();
  }

  absl::Status CreateDirRecursive(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return PosixError("mkdir -p", dir, ec.value());
    return absl::OkStatus();
  }

  absl::Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError("unlink", path, errno);
    return absl::OkStatus();
  }

  absl::Status RemoveDirRecursive(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) return PosixError("rm -r", dir, ec.value());
    return absl::OkStatus();
  }

  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return PosixError(absl::StrCat("rename to ", to), from, errno);
    }
    return absl::OkStatus();
  }

  absl::Status Truncate(const std::string& path, uint64_t size) override {
    if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
      return PosixError("truncate", path, errno);
    }
    return absl::OkStatus();
  }

  absl::Status SyncDir(const std::string& dir) override {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("open dir", dir, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return PosixError("fsync dir", dir, err);
    return absl::OkStatus();
  }

  absl::StatusOr<FsStats> GetFsStats(const std::string& path) override {
    struct statvfs vfs;
    if (::statvfs(path.c_str(), &vfs) != 0) {
      return PosixError("statvfs", path, errno);
    }
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    FsStats s;
    s.total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    s.free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    s.device = static_cast<uint64_t>(st.st_dev);
    return s;
  }

  absl::Time Now() override { return absl::Now(); }

  int64_t NowMonotonicNanos() override {
    struct timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
};

}  // namespace

Env* Env::Default() {
  static Env* const env = new PosixEnv();  // never destroyed
  return env;
}

}  // namespace bk
