// Helpers shared by the journal tests: hand-built journal files and bounded
// waits on add completions. (Directories: test/support/temp_dir.h.)

#ifndef BK_TEST_UNIT_JOURNAL_JOURNAL_TEST_UTIL_H_
#define BK_TEST_UNIT_JOURNAL_JOURNAL_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bookie/journal/journal.h"
#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_queue.h"
#include "common/env.h"
#include "test/support/temp_dir.h"

namespace bk::bookie::testing {

// The record salt of file `file_id` as this build writes it.
inline uint32_t SaltOf(uint64_t file_id) {
  return journal_format::RecordSalt(journal_format::kVersion, file_id);
}

// A record as written into the file whose salt is `salt` (0: versions 1
// and 2). The default is file 1's, the id most tests use.
inline std::string Record(journal_format::RecordType type, uint64_t ledger,
                          int64_t entry, absl::string_view payload,
                          uint32_t salt = SaltOf(1)) {
  journal_format::RecordHeader h;
  journal_format::EncodeRecordHeader(type, ledger, entry, payload, &h);
  journal_format::SaltRecordHeader(salt, h.data());
  return absl::StrCat(absl::string_view(h.data(), h.size()), payload);
}

inline std::string EntryRecord(uint64_t ledger, int64_t entry,
                               absl::string_view payload,
                               uint32_t salt = SaltOf(1)) {
  return Record(journal_format::RecordType::kEntry, ledger, entry, payload,
                salt);
}

inline std::string FileHeader(uint64_t file_id, uint32_t flags = 0) {
  const journal_format::FileHeader h =
      journal_format::EncodeFileHeader(file_id, flags);
  return std::string(h.data(), h.size());
}

// A file header claiming format `version`, its CRC sealed as if genuine.
std::string FileHeaderOfVersion(uint64_t file_id, uint32_t version);

inline void WriteRaw(const std::string& path, absl::string_view data) {
  auto f = Env::Default()->NewWritableFile(path);
  if (!f.ok()) abort();
  if (!(*f)->Append(data).ok() || !(*f)->Close().ok()) abort();
}

inline std::string ReadRaw(const std::string& path) {
  auto s = Env::Default()->ReadFileToString(path);
  return s.ok() ? *s : std::string();
}

// One add's outcome, settable from the completion thread.
struct AddWaiter {
  std::promise<absl::Status> promise;
  std::future<absl::Status> future = promise.get_future();

  // Waits at most 30 s (a hang is a failure, not a wait).
  bool Ready() {
    return future.wait_for(std::chrono::seconds(30)) ==
           std::future_status::ready;
  }
};

inline JournalCallback Notify(std::shared_ptr<AddWaiter> w) {
  return [w](absl::Status s) { w->promise.set_value(std::move(s)); };
}

inline JournalPayload Payload(std::string s) {
  return JournalPayload::Of(std::make_shared<const std::string>(std::move(s)));
}

// One directory under `dir` where every add is written as its own group at
// once (flush_when_queue_empty), through the page cache: a SyncGate counts
// each group as one write (aligned groups: direct_io_test.cc).
inline JournalOptions GroupPerAdd(const bk::testing::TempDir& dir) {
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.preallocate_bytes = 1 << 20;
  o.flush_when_queue_empty = true;
  o.direct_io = false;
  return o;
}

// Adaptive group commit alone closes a group: the thresholds and the wait
// are an hour away, so only an idle sync stage does. One sync in flight
// (`max_syncs_in_flight`) unless the caller sets more.
inline JournalOptions AdaptiveOnly(const bk::testing::TempDir& dir,
                                   int max_syncs_in_flight = 1) {
  JournalOptions o = GroupPerAdd(dir);
  o.flush_when_queue_empty = false;
  o.max_group_wait = absl::Hours(1);
  o.buffered_writes_threshold_bytes =
      JournalOptions::kMaxBufferedWritesThreshold;
  o.adaptive_group_commit = true;
  o.max_syncs_in_flight = max_syncs_in_flight;
  return o;
}

// A journal on `env` with `options`, replayed (nothing expected) and started.
inline std::unique_ptr<Journal> Started(Env* env,
                                        const JournalOptions& options) {
  auto j = std::make_unique<Journal>(env, options);
  REQUIRE(j->Replay([](const JournalRecordView&) {
             return absl::OkStatus();
           }).ok());
  REQUIRE(j->Start().ok());
  return j;
}

}  // namespace bk::bookie::testing

#endif  // BK_TEST_UNIT_JOURNAL_JOURNAL_TEST_UTIL_H_
