#include "common/fault_env.h"

#include <errno.h>

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"

namespace bk {
namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

// A file written through FaultInjectionEnv: asks the Env for a verdict before
// each write and sync, and tells it what reached the real file.
class FaultWritableFile final : public WritableFile {
 public:
  FaultWritableFile(FaultInjectionEnv* env, std::unique_ptr<WritableFile> base,
                    uint64_t generation)
      : env_(env), base_(std::move(base)), generation_(generation) {}

  absl::Status Append(absl::string_view data) override {
    struct iovec iov {
      const_cast<char*>(data.data()), data.size()
    };
    return AppendV(&iov, 1);
  }

  absl::Status AppendV(const struct iovec* iov, int iovcnt) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    env_->writes_.fetch_add(1);
    auto v = env_->OnWrite(path(), generation_);
    if (v.error_number != 0 && !v.tear) {
      return Break(PosixError("write", path(), v.error_number));
    }
    if (v.tear) {
      // Keep only the first keep_bytes of this write, then fail.
      std::vector<struct iovec> part;
      size_t left = v.keep_bytes;
      for (int i = 0; i < iovcnt && left > 0; ++i) {
        size_t n = std::min(left, iov[i].iov_len);
        part.push_back({iov[i].iov_base, n});
        left -= n;
      }
      if (!part.empty()) {
        absl::Status s =
            base_->AppendV(part.data(), static_cast<int>(part.size()));
        if (s.ok()) env_->RecordWrite(path(), v.keep_bytes - left);
      }
      return Break(PosixError("write (torn)", path(), EIO));
    }
    uint64_t bytes = 0;
    for (int i = 0; i < iovcnt; ++i) bytes += iov[i].iov_len;
    absl::Status s = base_->AppendV(iov, iovcnt);
    if (!s.ok()) return Break(s);
    env_->RecordWrite(path(), bytes);
    if (SyncGate* gate = env_->GateFor(path())) gate->Wrote();
    return absl::OkStatus();
  }

  absl::Status Sync(bool metadata) override {
    // What the Env has seen written before this sync starts is what it may
    // count as durable after it; appends racing with the sync are not.
    const uint64_t covered = env_->RecordedSize(path());
    // The gate sees every sync, also one on a broken file (a retry).
    absl::Status gated;
    if (SyncGate* gate = env_->GateFor(path())) gated = gate->Pass();
    if (absl::Status b = broken(); !b.ok()) return b;
    if (!gated.ok()) return Break(gated);
    env_->syncs_.fetch_add(1);
    auto v = env_->OnSync(path(), generation_);
    if (v.error_number != 0) {
      return Break(PosixError("sync", path(), v.error_number));
    }
    absl::Duration delay = env_->sync_delay();
    if (delay > absl::ZeroDuration()) absl::SleepFor(delay);
    absl::Status s = base_->Sync(metadata);
    if (!s.ok()) return Break(s);
    if (!env_->RecordSync(path(), covered, generation_)) {
      // The power went out while the sync ran: it did not complete.
      return Break(PosixError("sync (power cut)", path(), EIO));
    }
    return absl::OkStatus();
  }

  absl::Status Preallocate(uint64_t bytes) override {
    if (absl::Status b = broken(); !b.ok()) return b;
    return base_->Preallocate(bytes);
  }
  absl::Status Writeback(uint64_t offset, uint64_t length, bool wait) override {
    // Makes nothing durable, so nothing to record: a power cut still drops
    // whatever no Sync covered.
    if (absl::Status b = broken(); !b.ok()) return b;
    absl::Status s = base_->Writeback(offset, length, wait);
    if (!s.ok()) return Break(s);
    return absl::OkStatus();
  }
  void DropCachedRange(uint64_t offset, uint64_t length) override {
    base_->DropCachedRange(offset, length);
  }
  absl::Status Close() override { return base_->Close(); }
  uint64_t Size() const override { return base_->Size(); }
  const std::string& path() const override { return base_->path(); }

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

  FaultInjectionEnv* const env_;
  std::unique_ptr<WritableFile> base_;
  const uint64_t generation_;
  mutable absl::Mutex broken_mu_;
  absl::Status broken_ ABSL_GUARDED_BY(broken_mu_);  // sticky first failure
};

void FaultInjectionEnv::FailNth(Op op, int64_t n, int error_number,
                                const std::string& path_filter) {
  absl::MutexLock l(&mu_);
  Armed& a = op == Op::kWrite ? write_fault_ : sync_fault_;
  a = Armed{n, error_number, 0, path_filter};
}

void FaultInjectionEnv::TearNthWrite(int64_t n, size_t keep_bytes,
                                     const std::string& path_filter) {
  absl::MutexLock l(&mu_);
  tear_ = Armed{n, EIO, keep_bytes, path_filter};
}

void FaultInjectionEnv::SetSyncDelay(absl::Duration delay) {
  absl::MutexLock l(&mu_);
  sync_delay_ = delay;
}

void FaultInjectionEnv::SetNoSpace(bool full) {
  absl::MutexLock l(&mu_);
  no_space_ = full;
}

void FaultInjectionEnv::SetSyncGate(SyncGate* gate,
                                    const std::string& path_filter) {
  absl::MutexLock l(&mu_);
  gate_ = gate;
  gate_filter_ = path_filter;
}

SyncGate* FaultInjectionEnv::GateFor(const std::string& path) const {
  absl::MutexLock l(&mu_);
  return gate_ != nullptr && absl::StrContains(path, gate_filter_) ? gate_
                                                                   : nullptr;
}

void FaultInjectionEnv::ClearFaults() {
  absl::MutexLock l(&mu_);
  write_fault_ = sync_fault_ = tear_ = Armed{};
  sync_delay_ = absl::ZeroDuration();
  no_space_ = false;
}

absl::Duration FaultInjectionEnv::sync_delay() const {
  absl::MutexLock l(&mu_);
  return sync_delay_;
}

uint64_t FaultInjectionEnv::generation() const {
  absl::MutexLock l(&mu_);
  return generation_;
}

absl::Status FaultInjectionEnv::CheckAlive() const {
  absl::MutexLock l(&mu_);
  if (down_) return absl::InternalError("simulated power cut: disk gone");
  return absl::OkStatus();
}

FaultInjectionEnv::Verdict FaultInjectionEnv::OnWrite(const std::string& path,
                                                      uint64_t generation) {
  absl::MutexLock l(&mu_);
  Verdict v;
  if (down_ || generation != generation_) {
    v.error_number = EIO;
    return v;
  }
  if (tear_.remaining > 0 && absl::StrContains(path, tear_.path_filter) &&
      --tear_.remaining == 0) {
    v.tear = true;
    v.error_number = EIO;
    v.keep_bytes = tear_.keep_bytes;
    down_ = true;  // the machine "dies" with this write
    return v;
  }
  if (write_fault_.remaining > 0 &&
      absl::StrContains(path, write_fault_.path_filter) &&
      --write_fault_.remaining == 0) {
    v.error_number = write_fault_.error_number;
    return v;
  }
  if (no_space_) v.error_number = ENOSPC;
  return v;
}

FaultInjectionEnv::Verdict FaultInjectionEnv::OnSync(const std::string& path,
                                                     uint64_t generation) {
  absl::MutexLock l(&mu_);
  Verdict v;
  if (down_ || generation != generation_) {
    v.error_number = EIO;
    return v;
  }
  if (sync_fault_.remaining > 0 &&
      absl::StrContains(path, sync_fault_.path_filter) &&
      --sync_fault_.remaining == 0) {
    v.error_number = sync_fault_.error_number;
  }
  return v;
}

void FaultInjectionEnv::RecordWrite(const std::string& path, uint64_t bytes) {
  absl::MutexLock l(&mu_);
  files_[path].size += bytes;
}

uint64_t FaultInjectionEnv::RecordedSize(const std::string& path) {
  absl::MutexLock l(&mu_);
  return files_[path].size;
}

bool FaultInjectionEnv::RecordSync(const std::string& path, uint64_t covered,
                                   uint64_t generation) {
  absl::MutexLock l(&mu_);
  if (down_ || generation != generation_) return false;
  FileState& f = files_[path];
  // A power cut or truncation in between may have shrunk the file.
  f.synced_size = std::max(f.synced_size, std::min(covered, f.size));
  return true;
}

uint64_t FaultInjectionEnv::UnsyncedBytes() const {
  absl::MutexLock l(&mu_);
  uint64_t total = 0;
  for (const auto& [path, f] : files_) total += f.size - f.synced_size;
  return total;
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultInjectionEnv::Track(
    absl::StatusOr<std::unique_ptr<WritableFile>> file, bool created) {
  if (!file.ok()) return file.status();
  absl::MutexLock l(&mu_);
  const std::string& path = (*file)->path();
  FileState& f = files_[path];
  f.size = (*file)->Size();
  if (created) {
    f.synced_size = 0;
    new_files_.insert(path);
  } else if (f.synced_size > f.size) {
    f.synced_size = f.size;
  }
  return std::unique_ptr<WritableFile>(
      new FaultWritableFile(this, std::move(*file), generation_));
}

absl::StatusOr<std::unique_ptr<WritableFile>>
FaultInjectionEnv::NewWritableFile(const std::string& path) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  const bool existed = target()->FileExists(path);
  auto f = Track(target()->NewWritableFile(path), /*created=*/true);
  if (f.ok() && existed) {
    // Truncating an existing file is metadata the next dir sync makes
    // durable; we treat the name as durable and the content as empty.
    absl::MutexLock l(&mu_);
    new_files_.erase(path);
  }
  return f;
}

absl::StatusOr<std::unique_ptr<WritableFile>>
FaultInjectionEnv::NewAppendableFile(const std::string& path) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  const bool existed = target()->FileExists(path);
  bool known;
  {
    absl::MutexLock l(&mu_);
    known = files_.count(path) > 0;
  }
  auto f = target()->NewAppendableFile(path);
  if (!f.ok()) return f.status();
  if (!existed) return Track(std::move(f), /*created=*/true);
  if (!known) {
    absl::MutexLock l(&mu_);
    files_[path] = FileState{(*f)->Size(), (*f)->Size()};
  }
  return Track(std::move(f), /*created=*/false);
}

absl::StatusOr<std::unique_ptr<WritableFile>>
FaultInjectionEnv::ReopenWritableFile(const std::string& path,
                                      bool /*direct*/) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  std::string original;
  {
    auto r = target()->NewRandomAccessFile(path);
    if (!r.ok()) return r.status();
    auto size = (*r)->Size();
    if (!size.ok()) return size.status();
    original.resize(*size);
    size_t done = 0;
    while (done < original.size()) {
      auto got =
          (*r)->Read(done, original.size() - done, original.data() + done);
      if (!got.ok()) return got.status();
      if (*got == 0) break;
      done += *got;
    }
    original.resize(done);
  }
  auto f = Track(target()->ReopenWritableFile(path, /*direct=*/false),
                 /*created=*/false);
  if (!f.ok()) return f;
  absl::MutexLock l(&mu_);
  FileState& state = files_[path];
  state.size = state.synced_size = 0;
  state.original = std::move(original);
  return f;
}

absl::Status FaultInjectionEnv::Truncate(const std::string& path,
                                         uint64_t size) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  absl::Status s = target()->Truncate(path, size);
  if (!s.ok()) return s;
  absl::MutexLock l(&mu_);
  auto it = files_.find(path);
  if (it != files_.end()) {
    FileState& f = it->second;
    f.size = std::min(f.size, size);
    f.synced_size = std::min(f.synced_size, size);
    if (f.original.size() > size) f.original.resize(size);
  }
  return s;
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>>
FaultInjectionEnv::NewRandomAccessFile(const std::string& path) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  return target()->NewRandomAccessFile(path);
}

absl::Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  absl::Status s = target()->RemoveFile(path);
  if (s.ok()) {
    absl::MutexLock l(&mu_);
    files_.erase(path);
    new_files_.erase(path);
  }
  return s;
}

absl::Status FaultInjectionEnv::RenameFile(const std::string& from,
                                           const std::string& to) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  absl::Status s = target()->RenameFile(from, to);
  if (!s.ok()) return s;
  // The rename itself is treated as durable at once (as ext4's rename-over
  // heuristics make it in practice); the data it carries is only as durable
  // as its last sync.
  absl::MutexLock l(&mu_);
  auto it = files_.find(from);
  if (it != files_.end()) {
    files_[to] = it->second;
    files_.erase(it);
  } else {
    files_.erase(to);
  }
  new_files_.erase(to);
  if (new_files_.erase(from) > 0) new_files_.insert(to);
  return s;
}

absl::Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  if (auto s = CheckAlive(); !s.ok()) return s;
  absl::Status s = target()->SyncDir(dir);
  if (!s.ok()) return s;
  absl::MutexLock l(&mu_);
  for (auto it = new_files_.begin(); it != new_files_.end();) {
    it = DirOf(*it) == dir ? new_files_.erase(it) : std::next(it);
  }
  return s;
}

absl::Status FaultInjectionEnv::PowerCut() {
  absl::MutexLock l(&mu_);
  down_ = true;
  ++generation_;
  absl::Status first;
  for (const std::string& path : new_files_) {
    if (target()->FileExists(path)) {
      absl::Status s = target()->RemoveFile(path);
      if (first.ok()) first = s;
    }
    files_.erase(path);
  }
  new_files_.clear();
  for (auto& [path, f] : files_) {
    if (f.size > f.synced_size && target()->FileExists(path)) {
      absl::Status s = target()->Truncate(path, f.synced_size);
      if (s.ok() && f.original.size() > f.synced_size) {
        s = PutBack(path, f.synced_size,
                    absl::string_view(f.original).substr(f.synced_size));
      }
      if (first.ok()) first = s;
    }
    f.size = f.synced_size;
    // What is on disk now: synced new bytes, then the old ones.
    if (f.original.size() > f.synced_size) {
      f.size = f.synced_size = f.original.size();
    }
    f.original.clear();
  }
  return first;
}

absl::Status FaultInjectionEnv::PutBack(const std::string& path,
                                        uint64_t offset,
                                        absl::string_view bytes) {
  // The file was cut to `offset` just before: appending restores the rest.
  auto f = target()->NewAppendableFile(path);
  if (!f.ok()) return f.status();
  if ((*f)->Size() != offset) {
    return absl::InternalError("fault env: unexpected size when restoring");
  }
  absl::Status s = (*f)->Append(bytes);
  if (s.ok()) s = (*f)->Sync();
  absl::Status c = (*f)->Close();
  return s.ok() ? c : s;
}

void FaultInjectionEnv::Restart() {
  absl::MutexLock l(&mu_);
  down_ = false;
}

}  // namespace bk
