#include "bench/add_floor.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/crc32c.h"

namespace bk::bookie {
namespace {

namespace jf = journal_format;

constexpr uint64_t kJournalRollBytes = uint64_t{256} << 20;
constexpr uint64_t kLogRollBytes = uint64_t{1} << 30;
constexpr int kIovMax = 1024;
// The entry log's write-behind step, as the bookie's flushEntrylogBytes.
constexpr uint64_t kWriteBackStep = uint64_t{1} << 20;
// A sync of the whole log so far, as the bookie's flush ends with one for
// each write-cache half it writes (64 MiB by default). One per GiB (at the
// roll) stalled the add path here for 0.5 s: ext4 commits the file's
// allocations then.
constexpr uint64_t kSyncStep = uint64_t{64} << 20;

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

AddFloor::AddFloor(std::string journal_dir, std::string ledger_dir,
                   bool write_back) {
  journal_.dir = std::move(journal_dir);
  journal_.suffix = "jnl";
  journal_.roll_bytes = kJournalRollBytes;
  log_.dir = std::move(ledger_dir);
  log_.suffix = "log";
  log_.roll_bytes = kLogRollBytes;
  log_.write_back = write_back;
}

absl::StatusOr<std::unique_ptr<AddFloor>> AddFloor::Open(
    const std::string& journal_dir, const std::string& ledger_dir,
    bool write_back) {
  std::unique_ptr<AddFloor> f(
      new AddFloor(journal_dir, ledger_dir, write_back));
  absl::MutexLock l(&f->mu_);
  if (absl::Status s = Roll(&f->journal_); !s.ok()) return s;
  if (absl::Status s = Roll(&f->log_); !s.ok()) return s;
  return f;
}

AddFloor::~AddFloor() {
  absl::MutexLock l(&mu_);
  Close(&journal_);
  Close(&log_);
}

uint64_t AddFloor::entries() const {
  absl::MutexLock l(&mu_);
  return entries_;
}

void AddFloor::Close(File* f) {
  for (const std::string& p : f->retired) unlink(p.c_str());
  f->retired.clear();
  if (f->fd < 0) return;
  close(f->fd);
  unlink(f->path.c_str());
  f->fd = -1;
}

absl::Status AddFloor::Retire(File* f) {
  if (f->fd < 0 || !f->write_back) return absl::OkStatus();
  // Never retried: the batch that rolled the file is answered BK_EIO.
  if (fdatasync(f->fd) != 0) return Errno("cannot sync", f->path);
  // Removed when the floor closes: removing a written-back log took about
  // half a second per GiB here (0.25 s for 0.5 GiB, strace), a stall a
  // bookie, whose logs compaction removes off the add path, never has.
  close(f->fd);
  f->fd = -1;
  f->retired.push_back(f->path);
  return absl::OkStatus();
}

absl::Status AddFloor::Roll(File* f) {
  if (absl::Status s = Retire(f); !s.ok()) return s;
  Close(f);
  f->path = absl::StrCat(f->dir, "/bk_add_floor.", getpid(), ".", f->seq++, ".",
                         f->suffix);
  f->fd = open(f->path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f->fd < 0) return Errno("cannot create", f->path);
  f->size = 0;
  f->started = 0;
  f->waited = 0;
  f->dropped = 0;
  f->synced = 0;
  return absl::OkStatus();
}

absl::Status AddFloor::Append(File* f) {
  if (f->size >= f->roll_bytes) {
    if (absl::Status s = Roll(f); !s.ok()) return s;
  }
  size_t i = 0;
  size_t skip = 0;  // bytes of iov_[i] already written
  while (i < iov_.size()) {
    iovec first = iov_[i];
    iov_[i].iov_base = static_cast<char*>(first.iov_base) + skip;
    iov_[i].iov_len -= skip;
    const int n = static_cast<int>(std::min<size_t>(iov_.size() - i, kIovMax));
    const ssize_t w = pwritev(f->fd, &iov_[i], n, f->size);
    iov_[i] = first;
    if (w < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", f->path);
    }
    f->size += w;
    size_t left = static_cast<size_t>(w) + skip;
    while (i < iov_.size() && left >= iov_[i].iov_len) {
      left -= iov_[i].iov_len;
      ++i;
    }
    skip = left;
  }
  if (f->write_back && f->size - f->started >= kWriteBackStep) {
    // As the bookie's flush writes behind (EntryLogWriter::WriteBehind):
    // wait for the step started last, then start this one, so that one
    // step at most is queued at the disk. The waits stall the appends
    // (the bookie waits on its flush thread), so the durable floor's rate
    // bounds nothing; its CPU per add is what it measures.
    auto range = [&](uint64_t from, uint64_t to, unsigned flags) {
      return sync_file_range(f->fd, static_cast<off_t>(from),
                             static_cast<off_t>(to - from), flags) == 0;
    };
    if (f->started > f->waited &&
        !range(f->waited, f->started,
               SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                   SYNC_FILE_RANGE_WAIT_AFTER)) {
      return Errno("cannot write back", f->path);
    }
    // And its pages dropped, as the bookie's entryLogRemoveFromPageCache
    // does by default.
    (void)posix_fadvise(f->fd, static_cast<off_t>(f->dropped),
                        static_cast<off_t>(f->started - f->dropped),
                        POSIX_FADV_DONTNEED);
    f->dropped = f->started;
    f->waited = f->started;
    if (!range(f->started, f->size, SYNC_FILE_RANGE_WRITE)) {
      return Errno("cannot write back", f->path);
    }
    f->started = f->size;
  }
  if (f->write_back && f->size - f->synced >= kSyncStep) {
    // Never retried: the batch is answered BK_EIO.
    if (fdatasync(f->fd) != 0) return Errno("cannot sync", f->path);
    f->synced = f->size;
  }
  return absl::OkStatus();
}

absl::Status AddFloor::Take(const proto::AddRequest& request) {
  const int n = request.entries_size();
  absl::MutexLock l(&mu_);
  crcs_.resize(n);
  journal_headers_.resize(n);
  log_headers_.resize(n);
  const uint32_t salt = jf::RecordSalt(jf::kVersion, journal_.seq);
  for (int i = 0; i < n; ++i) {
    const proto::AddEntry& e = request.entries(i);
    crcs_[i] = crc32c::Value(e.body().data(), e.body().size());
    jf::EncodeRecordHeaderWithPayloadCrc(jf::RecordType::kEntry, e.ledger_id(),
                                         e.entry_id(), e.body().size(),
                                         crcs_[i], &journal_headers_[i]);
    jf::SaltRecordHeader(salt, journal_headers_[i].data());
    entrylog::EncodeRecordHeaderWithDataCrc(e.ledger_id(), e.entry_id(),
                                            e.body().size(), crcs_[i],
                                            log_headers_[i].data());
  }
  auto body = [&](int i) {
    const std::string& b = request.entries(i).body();
    return iovec{const_cast<char*>(b.data()), b.size()};
  };
  iov_.clear();
  for (int i = 0; i < n; ++i) {
    iov_.push_back({journal_headers_[i].data(), journal_headers_[i].size()});
    iov_.push_back(body(i));
  }
  if (absl::Status s = Append(&journal_); !s.ok()) return s;
  if (fdatasync(journal_.fd) != 0) {
    // Never retried: the batch is answered BK_EIO.
    return Errno("cannot sync", journal_.path);
  }
  iov_.clear();
  for (int i = 0; i < n; ++i) {
    iov_.push_back({log_headers_[i].data(), log_headers_[i].size()});
    iov_.push_back(body(i));
  }
  if (absl::Status s = Append(&log_); !s.ok()) return s;
  entries_ += n;
  return absl::OkStatus();
}

}  // namespace bk::bookie
