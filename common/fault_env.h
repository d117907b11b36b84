// FaultInjectionEnv: an Env for tests and benchmarks that misbehaves on
// purpose, the way disks and kernels do.
//
//  - PowerCut(): simulates losing power. Every file written through this Env
//    is cut back to the bytes that were synced; files created since their
//    directory was last synced disappear. Files opened before the cut are
//    dead afterwards (every call fails), so the code under test can be torn
//    down without writing more; Restart() lets new files be opened.
//  - FailNth(op, n, errno): the nth write or sync from now (counted over
//    files whose path contains `path_filter`) fails with that errno (EIO or
//    ENOSPC); the file is broken from then on, like a real one.
//  - TearNthWrite(n, keep): the nth write from now puts only its first
//    `keep` bytes on disk, then the Env behaves as if power was cut.
//  - SetSyncDelay(d): every sync takes at least d longer (a slow disk). The
//    bookie can be started on this Env through a config key documented as a
//    testing aid, so a benchmark can slow one bookie's disk.
//  - SetNoSpace(true): every write fails with ENOSPC until cleared.
//  - SetSyncGate(gate, filter): syncs of matching files wait in a SyncGate
//    (sync_gate.h) until the test lets them through, or fail on its word.
//
// Thread-safe. Files made by this Env must not outlive it.

#ifndef BK_COMMON_FAULT_ENV_H_
#define BK_COMMON_FAULT_ENV_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/env.h"
#include "common/sync_gate.h"

namespace bk {

class FaultInjectionEnv : public EnvWrapper {
 public:
  enum class Op { kWrite, kSync };

  explicit FaultInjectionEnv(Env* target) : EnvWrapper(target) {}

  // Arms one failure: the nth (1-based) matching op from now fails.
  void FailNth(Op op, int64_t n, int error_number,
               const std::string& path_filter = "");
  // Arms a torn write: the nth matching write from now keeps `keep_bytes`
  // and then the Env is cut off as by PowerCut (without the truncation of
  // other files' unsynced data: call PowerCut to apply that too).
  void TearNthWrite(int64_t n, size_t keep_bytes,
                    const std::string& path_filter = "");
  void SetSyncDelay(absl::Duration delay);
  void SetNoSpace(bool full);
  // Syncs and writes of files whose path contains `path_filter` go through
  // `gate` (null: no gate). A sync waits in the gate after the Env has
  // noted what it covers, so bytes written while it is held are not
  // durable after it. `gate` must outlive every file of this Env.
  void SetSyncGate(SyncGate* gate, const std::string& path_filter = "");
  // Clears armed failures, the delay and the no-space state (not the gate).
  void ClearFaults();

  // Simulated power cut; see the file comment. Returns the first error met
  // while applying it.
  absl::Status PowerCut();
  // After PowerCut: new files may be opened again.
  void Restart();

  int64_t write_count() const { return writes_.load(); }
  int64_t sync_count() const { return syncs_.load(); }
  // Bytes written but not yet synced, over all tracked files.
  uint64_t UnsyncedBytes() const;

  // Env overrides.
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  // Reopens through the target without O_DIRECT (every file of this Env
  // goes through the page cache). A power cut puts back the old bytes of
  // every range overwritten since the last sync.
  absl::StatusOr<std::unique_ptr<WritableFile>> ReopenWritableFile(
      const std::string& path, bool direct) override;
  // Durable at once, as renames are here.
  absl::Status Truncate(const std::string& path, uint64_t size) override;
  absl::Status RemoveFile(const std::string& path) override;
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override;
  absl::Status SyncDir(const std::string& dir) override;

 private:
  friend class FaultWritableFile;

  struct FileState {
    uint64_t size = 0;         // bytes appended (the write position)
    uint64_t synced_size = 0;  // bytes known durable
    // A reopened file: its content when reopened, which a power cut puts
    // back past synced_size.
    std::string original;
  };
  struct Armed {
    int64_t remaining = 0;  // 0: not armed
    int error_number = 0;
    size_t keep_bytes = 0;
    std::string path_filter;
  };

  // What a file must do with one write or sync, decided under mu_.
  struct Verdict {
    int error_number = 0;  // non-zero: fail with this errno
    bool tear = false;     // write keep_bytes then fail
    size_t keep_bytes = 0;
  };

  Verdict OnWrite(const std::string& path, uint64_t generation);
  Verdict OnSync(const std::string& path, uint64_t generation);
  void RecordWrite(const std::string& path, uint64_t bytes);
  // Bytes written to `path` so far, as recorded.
  uint64_t RecordedSize(const std::string& path);
  // The first `covered` bytes of `path` are durable -- unless the power was
  // cut since the file (of `generation`) was opened: then false.
  bool RecordSync(const std::string& path, uint64_t covered,
                  uint64_t generation);
  absl::Duration sync_delay() const;
  // The gate for `path`, or null.
  SyncGate* GateFor(const std::string& path) const;
  uint64_t generation() const;
  absl::Status CheckAlive() const;
  // Writes `bytes` back at `offset` of the target's file (PowerCut).
  absl::Status PutBack(const std::string& path, uint64_t offset,
                       absl::string_view bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::unique_ptr<WritableFile>> Track(
      absl::StatusOr<std::unique_ptr<WritableFile>> file, bool created);

  mutable absl::Mutex mu_;
  std::map<std::string, FileState> files_ ABSL_GUARDED_BY(mu_);
  // Created files whose directory has not been synced since.
  std::set<std::string> new_files_ ABSL_GUARDED_BY(mu_);
  Armed write_fault_ ABSL_GUARDED_BY(mu_);
  Armed sync_fault_ ABSL_GUARDED_BY(mu_);
  Armed tear_ ABSL_GUARDED_BY(mu_);
  absl::Duration sync_delay_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  bool no_space_ ABSL_GUARDED_BY(mu_) = false;
  SyncGate* gate_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string gate_filter_ ABSL_GUARDED_BY(mu_);
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  // Bumped by PowerCut; files of an older generation are dead.
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;

  std::atomic<int64_t> writes_{0};
  std::atomic<int64_t> syncs_{0};
};

}  // namespace bk

#endif  // BK_COMMON_FAULT_ENV_H_
