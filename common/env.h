// Env: the one door to files, directories, durability and time.
//
// Every byte the bookie puts on disk and every clock reading it acts on goes
// through an Env, so that tests can substitute a fault-injecting Env (see
// fault_env.h) that drops unsynced data, fails the Nth write or sync, tears a
// write, or slows every sync.
//
// Ownership: Env::Default() returns a process-wide singleton that is never
// destroyed. Files returned by an Env are owned by the caller and must not
// outlive the Env that made them.
//
// Threads: an Env is safe for concurrent use. A single WritableFile or
// RandomAccessFile is not, unless its comment says so (RandomAccessFile::Read
// is safe to call concurrently).
//
// Durability words, used the same way everywhere in this project:
//   appended - handed to the file (may sit in the page cache);
//   synced   - Sync() returned OK after it was appended: it survives a power
//              cut.
// A failed Append or Sync makes the file "broken": every later call on it
// returns the same error. A failed sync is never retried (see STYLE.md 5).

#ifndef BK_COMMON_ENV_H_
#define BK_COMMON_ENV_H_

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bk {

// A file opened for appending. Not thread-safe.
// Threads: one thread appends (Append, AppendV, Preallocate, Close); one
// other thread may call Sync concurrently with those (a journal's
// force-write stage). Sync makes durable at least every byte whose append
// returned before Sync was called. Size may be read by either.
// Address, length and file offset alignment of direct (O_DIRECT) writes:
// the largest sector size in common use, so no device reads-modifies-writes.
inline constexpr size_t kDirectIoAlignment = 4096;

class WritableFile {
 public:
  virtual ~WritableFile() = default;

  // Appends `data` at the current end. On error the file is broken.
  virtual absl::Status Append(absl::string_view data) = 0;
  // Appends all of `iov[0..iovcnt)` as one write (writev) at the current end.
  virtual absl::Status AppendV(const struct iovec* iov, int iovcnt) = 0;
  // Makes everything appended so far durable (fdatasync, or fsync when
  // `metadata` is true). On error the file is broken and nothing appended
  // since the last successful Sync may be assumed durable. Syncs may run
  // in several threads at once, also beside an Append; each covers every
  // append that returned before it was called, and one that returns OK
  // saw no failure of those bytes (the POSIX Env gives each concurrent
  // sync a descriptor of its own for that).
  virtual absl::Status Sync(bool metadata = false) = 0;
  // Reserves `bytes` of space from the current end without changing the
  // logical size (fallocate KEEP_SIZE); a no-op where unsupported.
  virtual absl::Status Preallocate(uint64_t bytes) = 0;
  // Tells the kernel that bytes [offset, offset + length) need not stay in
  // the page cache (POSIX_FADV_DONTNEED) once synced. Best effort: no
  // error, no effect on what is durable or on the file's contents; synced
  // pages are dropped at once, dirty ones stay. For an appender whose
  // written bytes are read back rarely (a journal, an entry log): it keeps
  // reusing a few warm pages instead of taking fresh ones for every write,
  // which on a VM whose free memory the host reclaims costs a host fault
  // per page (bench/results/bkbench_write.md). A no-op by default.
  virtual void DropCachedRange(uint64_t offset, uint64_t length) {
    (void)offset;
    (void)length;
  }
  // Starts writing bytes [offset, offset + length) to the device, and with
  // `wait` also waits until they are written (sync_file_range). Makes
  // nothing durable: no metadata, no device cache flush; only Sync does.
  // For a writer that streams a lot of data before one Sync (an entry-log
  // flush): the device writes one chunk while the next is appended,
  // instead of everything at the Sync, or each chunk behind a Sync of its
  // own. An error (the device failed a write) breaks the file, as a failed
  // Sync does. A no-op where unsupported, and by default.
  virtual absl::Status Writeback(uint64_t offset, uint64_t length, bool wait) {
    (void)offset;
    (void)length;
    (void)wait;
    return absl::OkStatus();
  }
  // Closes the descriptor. Does not sync.
  virtual absl::Status Close() = 0;
  // Logical size: bytes appended, including unsynced ones.
  virtual uint64_t Size() const = 0;
  virtual const std::string& path() const = 0;
};

// A file opened for positional reads. Read is thread-safe.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads up to `n` bytes at `offset` into `scratch`; returns the bytes read
  // (fewer than `n` only at end of file).
  virtual absl::StatusOr<size_t> Read(uint64_t offset, size_t n,
                                      char* scratch) const = 0;
  virtual absl::StatusOr<uint64_t> Size() const = 0;
  virtual const std::string& path() const = 0;
};

// Filesystem figures for the filesystem holding a path.
struct FsStats {
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;  // available to an unprivileged writer
  // The filesystem's device number (st_dev): equal for paths on one
  // mounted filesystem, different across mounts (tmpfs ones included).
  uint64_t device = 0;
};

class Env {
 public:
  virtual ~Env() = default;

  // The POSIX Env. Never destroyed.
  static Env* Default();

  // Creates or truncates `path` for appending.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  // Opens an existing file for appending at its end (creates it if missing).
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) = 0;
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Creates or truncates `path` for appending with writes that bypass the
  // page cache (O_DIRECT). Every Append must pass a buffer whose address and
  // length are multiples of kDirectIoAlignment (AppendV is not supported);
  // anything else is InvalidArgument and breaks the file. Sync is still
  // needed for durability (device cache, extent metadata).
  // Unimplemented where the filesystem refuses O_DIRECT (tmpfs) or the Env
  // does not offer it; callers then fall back to NewWritableFile. Wrappers
  // (EnvWrapper) do not forward it, so an Env that intercepts files keeps
  // seeing every file it would otherwise see.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewDirectWritableFile(
      const std::string& path);
  // Opens the existing file `path` for writing from offset 0 without
  // truncating it (a recycled file): appends overwrite its old bytes in
  // place, which needs no allocation or size change and so makes a sync
  // cheaper than one after an append. Size() is the write position, 0 at
  // first; bytes past it keep their old content. `direct`: as
  // NewDirectWritableFile (Unimplemented when refused). NotFound when the
  // file does not exist. Unimplemented in Envs that do not offer it; like
  // NewDirectWritableFile it is not forwarded by EnvWrapper.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> ReopenWritableFile(
      const std::string& path, bool direct);

  virtual bool FileExists(const std::string& path) = 0;
  virtual absl::StatusOr<uint64_t> GetFileSize(const std::string& path) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) = 0;
  virtual absl::Status CreateDir(const std::string& dir) = 0;  // ok if exists
  virtual absl::Status CreateDirRecursive(const std::string& dir) = 0;
  virtual absl::Status RemoveFile(const std::string& path) = 0;
  virtual absl::Status RemoveDirRecursive(const std::string& dir) = 0;
  virtual absl::Status RenameFile(const std::string& from,
                                  const std::string& to) = 0;
  // Shrinks (or extends with zeros) a file that is not open for writing.
  virtual absl::Status Truncate(const std::string& path, uint64_t size) = 0;
  // fsyncs a directory so that creations, renames and removals in it are
  // durable.
  virtual absl::Status SyncDir(const std::string& dir) = 0;
  virtual absl::StatusOr<FsStats> GetFsStats(const std::string& path) = 0;

  // Writes `data` to `path` durably and atomically: temp file, sync, rename,
  // sync of the directory. A reader sees the old or the new content, never a
  // mix.
  absl::Status WriteFileAtomic(const std::string& path, absl::string_view data);
  // Reads a whole (small) file.
  absl::StatusOr<std::string> ReadFileToString(const std::string& path);

  // Time. NowMonotonic is for intervals; Now is wall time for reports.
  virtual absl::Time Now() = 0;
  virtual int64_t NowMonotonicNanos() = 0;
};

// The Status for a failed system call on `path`: ENOENT -> NotFound,
// EEXIST -> AlreadyExists, EACCES/EPERM -> PermissionDenied,
// ENOSPC/EDQUOT -> ResourceExhausted, anything else -> Internal. The message
// names the operation, the path and the errno text.
absl::Status PosixError(absl::string_view op, absl::string_view path,
                        int error_number);

// Forwards every call to a target Env; subclass it to override a few.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    return target_->NewWritableFile(path);
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return target_->NewAppendableFile(path);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return target_->NewRandomAccessFile(path);
  }
  bool FileExists(const std::string& path) override {
    return target_->FileExists(path);
  }
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    return target_->GetFileSize(path);
  }
  absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    return target_->GetChildren(dir);
  }
  absl::Status CreateDir(const std::string& dir) override {
    return target_->CreateDir(dir);
  }
  absl::Status CreateDirRecursive(const std::string& dir) override {
    return target_->CreateDirRecursive(dir);
  }
  absl::Status RemoveFile(const std::string& path) override {
    return target_->RemoveFile(path);
  }
  absl::Status RemoveDirRecursive(const std::string& dir) override {
    return target_->RemoveDirRecursive(dir);
  }
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override {
    return target_->RenameFile(from, to);
  }
  absl::Status Truncate(const std::string& path, uint64_t size) override {
    return target_->Truncate(path, size);
  }
  absl::Status SyncDir(const std::string& dir) override {
    return target_->SyncDir(dir);
  }
  absl::StatusOr<FsStats> GetFsStats(const std::string& path) override {
    return target_->GetFsStats(path);
  }
  absl::Time Now() override { return target_->Now(); }
  int64_t NowMonotonicNanos() override { return target_->NowMonotonicNanos(); }

 private:
  Env* const target_;
};

}  // namespace bk

#endif  // BK_COMMON_ENV_H_
