// Group commit, sticky failures, rolling, checkpoints and several
// directories (journal.h, journal_writer.h).

#include "bookie/journal/journal.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/fault_env.h"
#include "proto/crc32c.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

// Groups close only on the thresholds and the wait, which these tests are
// about (adaptive group commit: sync_pipeline_test.cc).
JournalOptions OneDir(const TempDir& dir) {
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.preallocate_bytes = 1 << 20;
  o.adaptive_group_commit = false;
  return o;
}

// Replays `options` into a vector of "ledger/entry=payload" strings.
std::vector<std::string> ReplayAll(Env* env, const JournalOptions& options,
                                   JournalReplayReport* report = nullptr) {
  Journal j(env, options);
  std::vector<std::string> out;
  auto r = j.Replay([&](const JournalRecordView& rec) {
    out.push_back(
        absl::StrCat(rec.ledger_id, "/", rec.entry_id, "=", rec.payload));
    return absl::OkStatus();
  });
  REQUIRE(r.ok());
  if (report != nullptr) *report = *r;
  return out;
}

TEST_CASE("an add completes only after its group is synced", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.flush_when_queue_empty = true;
  auto j = Started(&env, o);
  for (int i = 0; i < 5; ++i) {
    const int64_t syncs_before = env.sync_count();
    auto w = std::make_shared<AddWaiter>();
    std::atomic<uint64_t> unsynced_at_ack{~0ull};
    std::atomic<int64_t> syncs_at_ack{0};
    REQUIRE(j->Add(RT::kEntry, 1, i, Payload("data"), [&, w](absl::Status s) {
               unsynced_at_ack = env.UnsyncedBytes();
               syncs_at_ack = env.sync_count();
               w->promise.set_value(s);
             }).ok());
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
    CHECK(unsynced_at_ack == 0);
    CHECK(syncs_at_ack == syncs_before + 1);
  }
}

TEST_CASE("several adds share one sync", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Hours(1);  // only the entry count closes a group
  o.buffered_entries_threshold = 8;
  auto j = Started(&env, o);
  const int64_t syncs_before = env.sync_count();
  const int64_t writes_before = env.write_count();
  std::vector<std::shared_ptr<AddWaiter>> waiters;
  for (int i = 0; i < 8; ++i) {
    waiters.push_back(std::make_shared<AddWaiter>());
    REQUIRE(
        j->Add(RT::kEntry, 3, i, Payload("x"), Notify(waiters.back())).ok());
  }
  for (auto& w : waiters) {
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
  }
  CHECK(env.sync_count() == syncs_before + 1);
  CHECK(env.write_count() == writes_before + 1);  // one writev
  CHECK(j->Stats().groups_written == 1);
  CHECK(j->Stats().records_written == 8);
}

TEST_CASE(
    "a batch add queues its records in order, completes each after the sync "
    "and replays them like single adds",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Hours(1);
  o.buffered_entries_threshold = 6;
  auto j = Started(&env, o);
  const int64_t syncs_before = env.sync_count();
  std::vector<std::shared_ptr<AddWaiter>> waiters;
  std::vector<JournalRecord> batch;
  for (int i = 0; i < 6; ++i) {
    waiters.push_back(std::make_shared<AddWaiter>());
    JournalRecord r;
    r.ledger_id = 5;
    r.entry_id = i;
    const std::string data = absl::StrCat("e", i);
    r.payload = Payload(data);
    r.done = Notify(waiters.back());
    if (i % 2 == 0) {  // half with the payload CRC given
      r.has_payload_crc = true;
      r.payload_crc = crc32c::Value(data.data(), data.size());
    }
    batch.push_back(std::move(r));
  }
  REQUIRE(j->AddBatch(&batch).ok());
  for (auto& w : waiters) {
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
  }
  CHECK(env.sync_count() == syncs_before + 1);
  j->Stop();
  CHECK(ReplayAll(&env, o) == std::vector<std::string>{"5/0=e0", "5/1=e1",
                                                       "5/2=e2", "5/3=e3",
                                                       "5/4=e4", "5/5=e5"});
}

TEST_CASE("a batch add refused by a stopped journal keeps its callbacks",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  auto j = Started(Env::Default(), OneDir(dir));
  j->Stop();
  bool called = false;
  std::vector<JournalRecord> batch(1);
  batch[0].ledger_id = 1;
  batch[0].payload = Payload("x");
  batch[0].done = [&](absl::Status) { called = true; };
  CHECK_FALSE(j->AddBatch(&batch).ok());
  REQUIRE(batch[0].done);
  CHECK(batch[0].payload.data == "x");
  batch[0].done(absl::OkStatus());
  CHECK(called);
}

TEST_CASE("a group is synced once it reaches the bytes threshold",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Hours(1);
  o.buffered_writes_threshold_bytes = 3 * 1000;
  auto j = Started(&env, o);
  std::vector<std::shared_ptr<AddWaiter>> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.push_back(std::make_shared<AddWaiter>());
    REQUIRE(j->Add(RT::kEntry, 3, i, Payload(std::string(1000, 'a')),
                   Notify(waiters.back()))
                .ok());
  }
  for (auto& w : waiters) {
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
  }
}

// Records the groups the journal wrote (records, bytes), in order.
class GroupLog final : public JournalObserver {
 public:
  void OnGroup(const JournalGroupEvent& e) override {
    absl::MutexLock l(&mu_);
    groups_.emplace_back(e.records, e.bytes);
  }
  std::vector<std::pair<uint64_t, uint64_t>> groups() {
    absl::MutexLock l(&mu_);
    return groups_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::pair<uint64_t, uint64_t>> groups_ ABSL_GUARDED_BY(mu_);
};

// Ten records of `payload` bytes queued in one step.
std::vector<std::shared_ptr<AddWaiter>> AddTen(Journal* j, size_t payload) {
  std::vector<std::shared_ptr<AddWaiter>> waiters;
  std::vector<JournalRecord> batch;
  for (int i = 0; i < 10; ++i) {
    waiters.push_back(std::make_shared<AddWaiter>());
    JournalRecord r;
    r.ledger_id = 8;
    r.entry_id = i;
    r.payload = Payload(std::string(payload, 'g'));
    r.done = Notify(waiters.back());
    batch.push_back(std::move(r));
  }
  REQUIRE(j->AddBatch(&batch).ok());
  return waiters;
}

TEST_CASE(
    "the record that reaches a threshold ends its group and the rest start "
    "the next",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  GroupLog log;
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Hours(1);
  o.observer = &log;
  const uint64_t record = journal_format::kRecordHeaderSize + 1000;
  SECTION("bytes") {
    o.buffered_writes_threshold_bytes = 3 * record - 1;
    auto j = Started(&env, o);
    auto waiters = AddTen(j.get(), 1000);
    for (int i = 0; i < 9; ++i) REQUIRE(waiters[i]->Ready());
    // The tenth waits for a threshold or the group wait, as a lone add.
    CHECK(waiters[9]->future.wait_for(std::chrono::seconds(0)) !=
          std::future_status::ready);
    j->Stop();
    REQUIRE(waiters[9]->Ready());
    using G = std::pair<uint64_t, uint64_t>;
    CHECK(log.groups() ==
          std::vector<G>{
              {3, 3 * record}, {3, 3 * record}, {3, 3 * record}, {1, record}});
  }
  SECTION("entries") {
    o.buffered_entries_threshold = 4;
    auto j = Started(&env, o);
    auto waiters = AddTen(j.get(), 1000);
    for (int i = 0; i < 8; ++i) REQUIRE(waiters[i]->Ready());
    j->Stop();
    std::vector<uint64_t> records;
    for (const auto& g : log.groups()) records.push_back(g.first);
    CHECK(records == std::vector<uint64_t>{4, 4, 2});
  }
  CHECK(ReplayAll(&env, o).size() == 10);
}

TEST_CASE("a lone add is synced once it has waited the group wait",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Milliseconds(1);
  auto j = Started(&env, o);
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kFence, 4, -1, Payload(""), Notify(w)).ok());
  REQUIRE(w->Ready());
  CHECK(w->future.get().ok());
}

TEST_CASE("a failed sync fails its group and every later add", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.max_group_wait = absl::Hours(1);
  o.buffered_entries_threshold = 3;
  auto j = Started(&env, o);
  env.FailNth(FaultInjectionEnv::Op::kSync, 1, EIO);
  std::vector<std::shared_ptr<AddWaiter>> waiters;
  for (int i = 0; i < 6; ++i) {
    waiters.push_back(std::make_shared<AddWaiter>());
    absl::Status s =
        j->Add(RT::kEntry, 1, i, Payload("p"), Notify(waiters.back()));
    if (!s.ok()) waiters.back()->promise.set_value(s);  // refused up front
  }
  for (auto& w : waiters) {
    REQUIRE(w->Ready());
    absl::Status s = w->future.get();
    CHECK_FALSE(s.ok());
  }
  CHECK_FALSE(j->Healthy());
  CHECK(j->status().message().find("sync") != absl::string_view::npos);
  const int64_t syncs = env.sync_count();
  CHECK_FALSE(
      j->Add(RT::kEntry, 1, 99, Payload("late"), [](absl::Status) {}).ok());
  j->Stop();
  CHECK(env.sync_count() == syncs);  // never retried
}

TEST_CASE("a failed write fails its group and is never retried", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.flush_when_queue_empty = true;
  auto j = Started(&env, o);
  env.FailNth(FaultInjectionEnv::Op::kWrite, 1, ENOSPC);
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("p"), Notify(w)).ok());
  REQUIRE(w->Ready());
  CHECK(absl::IsResourceExhausted(w->future.get()));
  CHECK(absl::IsResourceExhausted(j->status()));
  CHECK(j->Stats().adds_failed == 1);
}

TEST_CASE("without journalSyncData adds complete after the write alone",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  FaultInjectionEnv env(Env::Default());
  JournalOptions o = OneDir(dir);
  o.sync_data = false;
  o.flush_when_queue_empty = true;
  auto j = Started(&env, o);
  const int64_t syncs = env.sync_count();
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("p"), Notify(w)).ok());
  REQUIRE(w->Ready());
  CHECK(w->future.get().ok());
  CHECK(env.sync_count() == syncs);
  j->Stop();  // a clean stop still syncs
  CHECK(env.sync_count() == syncs + 1);
}

TEST_CASE("replay returns the records after the checkpoint in order",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o = OneDir(dir);
  o.flush_when_queue_empty = true;
  {
    auto j = Started(Env::Default(), o);
    auto add = [&](int64_t e) {
      auto w = std::make_shared<AddWaiter>();
      REQUIRE(j->Add(RT::kEntry, 2, e, Payload(absl::StrCat("e", e)), Notify(w))
                  .ok());
      REQUIRE(w->Ready());
      REQUIRE(w->future.get().ok());
    };
    for (int e = 0; e < 3; ++e) add(e);
    const JournalMark mark = j->CurrentMark();
    for (int e = 3; e < 5; ++e) add(e);
    REQUIRE(j->Checkpoint(mark).ok());
  }
  CHECK(ReplayAll(Env::Default(), o) ==
        std::vector<std::string>{"2/3=e3", "2/4=e4"});
}

TEST_CASE(
    "files roll at the size limit and a checkpoint removes old files "
    "keeping the backups",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o = OneDir(dir);
  o.flush_when_queue_empty = true;
  o.max_file_size_bytes = 64 * 1024;
  o.max_backups = 2;
  o.reuse_files = false;  // recycling: journal_reuse_test.cc
  auto j = Started(Env::Default(), o);
  for (int e = 0; e < 40; ++e) {
    auto w = std::make_shared<AddWaiter>();
    REQUIRE(j->Add(RT::kEntry, 1, e, Payload(std::string(16 * 1024, 'r')),
                   Notify(w))
                .ok());
    REQUIRE(w->Ready());
    REQUIRE(w->future.get().ok());
  }
  auto before = ListJournalFiles(Env::Default(), o.dirs[0]);
  REQUIRE(before.ok());
  CHECK(before->size() >= 10);
  for (uint64_t id : *before) {
    CHECK(*Env::Default()->GetFileSize(JournalFilePath(o.dirs[0], id)) <=
          o.max_file_size_bytes);
  }
  REQUIRE(j->Checkpoint(j->CurrentMark()).ok());
  auto after = ListJournalFiles(Env::Default(), o.dirs[0]);
  REQUIRE(after.ok());
  CHECK(after->size() == 3);  // the current file and two backups
  CHECK(after->back() == before->back());
  CHECK(j->Stats().files_removed == before->size() - 3);
  CHECK(absl::IsInvalidArgument(
      j->Checkpoint(JournalMark{{JournalPosition{after->back() + 1, 0}}})));
}

TEST_CASE(
    "ledgers are spread over several journal directories and all "
    "are replayed",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("j0"), dir.Sub("j1"), dir.Sub("j2")};
  o.max_group_wait = absl::Microseconds(200);
  {
    auto j = Started(Env::Default(), o);
    std::vector<std::shared_ptr<AddWaiter>> waiters;
    for (uint64_t ledger = 0; ledger < 6; ++ledger) {
      for (int64_t e = 0; e < 4; ++e) {
        waiters.push_back(std::make_shared<AddWaiter>());
        REQUIRE(
            j->Add(RT::kEntry, ledger, e, Payload("v"), Notify(waiters.back()))
                .ok());
      }
    }
    for (auto& w : waiters) {
      REQUIRE(w->Ready());
      REQUIRE(w->future.get().ok());
    }
  }
  for (const std::string& d : o.dirs) {
    auto files = ListJournalFiles(Env::Default(), d);
    REQUIRE(files.ok());
    CHECK(files->size() == 1);
  }
  JournalReplayReport report;
  std::vector<std::string> got = ReplayAll(Env::Default(), o, &report);
  CHECK(got.size() == 24);
  REQUIRE(report.dirs.size() == 3);
  CHECK(report.dirs[1].records == 8);  // ledgers 1 and 4
  std::map<uint64_t, int64_t> next;
  for (const std::string& r : got) {  // per ledger, entries in order
    uint64_t ledger = std::stoull(r.substr(0, r.find('/')));
    int64_t e = std::stoll(r.substr(r.find('/') + 1));
    CHECK(e == next[ledger]++);
  }
}

TEST_CASE("adds before start or after stop are refused", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  Journal j(Env::Default(), OneDir(dir));
  CHECK(absl::IsFailedPrecondition(
      j.Add(RT::kEntry, 1, 0, Payload("p"), [](absl::Status) {})));
  CHECK(absl::IsFailedPrecondition(j.Start()));
  REQUIRE(
      j.Replay([](const JournalRecordView&) { return absl::OkStatus(); }).ok());
  REQUIRE(j.Start().ok());
  j.Stop();
  CHECK(absl::IsFailedPrecondition(
      j.Add(RT::kEntry, 1, 0, Payload("p"), [](absl::Status) {})));
}

}  // namespace
}  // namespace bk::bookie
