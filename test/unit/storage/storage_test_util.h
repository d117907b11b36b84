// Helpers shared by the storage tests: packaged entries with recognisable
// content, and an Env that records sync spans. (Directories:
// test/support/temp_dir.h; holding syncs: SyncGate on a FaultInjectionEnv,
// common/sync_gate.h.)

#ifndef BK_TEST_UNIT_STORAGE_STORAGE_TEST_UTIL_H_
#define BK_TEST_UNIT_STORAGE_STORAGE_TEST_UTIL_H_

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "bookie/storage/entry_buffer.h"
#include "bookie/storage/ledger_storage.h"
#include "common/env.h"
#include "proto/entry_format.h"
#include "test/support/temp_dir.h"

namespace bk::bookie::testing {

// A packaged entry whose payload is derived from (ledger, entry, size).
inline EntryBuffer MakeEntry(uint64_t ledger, int64_t entry,
                             size_t payload = 100, int64_t lac = -1) {
  std::string body(payload, '\0');
  for (size_t i = 0; i < payload; ++i) {
    body[i] = static_cast<char>((ledger * 31 + entry * 7 + i) & 0xff);
  }
  entry::EntryHeader h{ledger, entry, lac, 0};
  return MakeEntryBuffer(entry::Package(h, body, entry::DigestType::kCrc32c));
}

// True if `got` is exactly what MakeEntry made (digest verified too).
inline bool IsEntry(const EntryBuffer& got, uint64_t ledger, int64_t entry,
                    size_t payload = 100) {
  if (got == nullptr) return false;
  auto d = entry::Decode(*got, entry::DigestType::kCrc32c, ledger, entry);
  return d.ok() && *got == *MakeEntry(ledger, entry, payload);
}

// Flips one bit of the byte at `offset` of the file at `path` (damage a
// reader must catch); the test fails if the file cannot be changed.
inline void FlipByte(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  char c;
  REQUIRE(::pread(fd, &c, 1, static_cast<off_t>(offset)) == 1);
  c ^= 0x40;
  REQUIRE(::pwrite(fd, &c, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

// Adds entries [from, to) of `ledger` (MakeEntry's); the test fails on an
// error.
inline void AddRange(LedgerStorage* storage, uint64_t ledger, int64_t from,
                     int64_t to) {
  for (int64_t e = from; e < to; ++e) {
    REQUIRE(storage->AddEntry(ledger, e, MakeEntry(ledger, e)).ok());
  }
}

// A storage opened on the default Env; the test fails if it does not open.
inline std::unique_ptr<LedgerStorage> OpenOrDie(const LedgerStorageOptions& o) {
  auto s = LedgerStorage::Open(Env::Default(), o);
  REQUIRE(s.ok());
  return std::move(*s);
}

inline LedgerStorageOptions SmallOptions(const std::string& dir) {
  LedgerStorageOptions o;
  o.ledger_dirs = {dir};
  o.write_cache_bytes = 4 << 20;
  o.read_cache_bytes = 4 << 20;
  o.background_flush = false;
  o.gc_wait_time = absl::ZeroDuration();
  o.compaction_rate_bytes_per_second = 0;
  o.max_throttle_time = absl::Milliseconds(50);
  return o;
}

// An Env that records, for every sync of an entry log (".log"), how many
// bytes were appended to that file since its previous sync, and every
// write-back asked of one (WritableFile::Writeback). With
// fail_writeback(), a write-back fails with that status instead.
class SyncSpanEnv : public EnvWrapper {
 public:
  struct Writeback {
    uint64_t offset = 0;
    uint64_t length = 0;
    bool wait = false;
    uint64_t appended = 0;  // the file's size when it was asked
  };

  explicit SyncSpanEnv(Env* target) : EnvWrapper(target) {}

  std::vector<uint64_t> spans() const {
    absl::MutexLock l(&mu_);
    return spans_;
  }
  std::vector<Writeback> writebacks() const {
    absl::MutexLock l(&mu_);
    return writebacks_;
  }
  void fail_writeback(absl::Status s) {
    absl::MutexLock l(&mu_);
    writeback_error_ = std::move(s);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    auto f = target()->NewWritableFile(path);
    if (!f.ok() || !absl::EndsWith(path, ".log")) return f;
    return std::unique_ptr<WritableFile>(new File(this, std::move(*f)));
  }

 private:
  class File : public WritableFile {
   public:
    File(SyncSpanEnv* env, std::unique_ptr<WritableFile> base)
        : env_(env), base_(std::move(base)) {}
    absl::Status Append(absl::string_view d) override {
      unsynced_ += d.size();
      return base_->Append(d);
    }
    absl::Status AppendV(const struct iovec* iov, int n) override {
      for (int i = 0; i < n; ++i) unsynced_ += iov[i].iov_len;
      return base_->AppendV(iov, n);
    }
    absl::Status Sync(bool metadata) override {
      {
        absl::MutexLock l(&env_->mu_);
        env_->spans_.push_back(unsynced_);
      }
      unsynced_ = 0;
      return base_->Sync(metadata);
    }
    absl::Status Writeback(uint64_t offset, uint64_t length,
                           bool wait) override {
      {
        absl::MutexLock l(&env_->mu_);
        env_->writebacks_.push_back({offset, length, wait, base_->Size()});
        if (!env_->writeback_error_.ok()) return env_->writeback_error_;
      }
      return base_->Writeback(offset, length, wait);
    }
    absl::Status Preallocate(uint64_t b) override {
      return base_->Preallocate(b);
    }
    absl::Status Close() override { return base_->Close(); }
    uint64_t Size() const override { return base_->Size(); }
    const std::string& path() const override { return base_->path(); }

   private:
    SyncSpanEnv* const env_;
    std::unique_ptr<WritableFile> base_;
    uint64_t unsynced_ = 0;  // the owner serialises a file's calls
  };

  mutable absl::Mutex mu_;
  std::vector<uint64_t> spans_ ABSL_GUARDED_BY(mu_);
  std::vector<Writeback> writebacks_ ABSL_GUARDED_BY(mu_);
  absl::Status writeback_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::bookie::testing

#endif  // BK_TEST_UNIT_STORAGE_STORAGE_TEST_UTIL_H_
