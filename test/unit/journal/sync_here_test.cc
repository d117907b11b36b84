// A lone small group synced on the journal thread (sync_thread.h SyncHere,
// part of adaptive group commit): it runs there only when no sync is
// waiting or running and the group is small; an add that arrives during
// that sync is neither written nor acknowledged before a sync of its own;
// and a failed sync there fails what follows it, with no retry, as a
// failed sync on the sync thread does.
//
// Which thread ran a callback is told by its name (the journal's threads
// name themselves for top -H and perf).

#include <pthread.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bookie/journal/completion_thread.h"
#include "bookie/journal/journal.h"
#include "bookie/journal/sync_thread.h"
#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

std::string ThreadName() {
  char name[32] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

// Completes `w` and notes the name of the thread that called back.
struct Callback {
  absl::Mutex mu;
  std::vector<std::string> threads ABSL_GUARDED_BY(mu);

  JournalCallback Notify(std::shared_ptr<AddWaiter> w) {
    return [this, w](absl::Status s) {
      {
        absl::MutexLock l(&mu);
        threads.push_back(ThreadName());
      }
      w->promise.set_value(std::move(s));
    };
  }
  std::vector<std::string> Threads() {
    absl::MutexLock l(&mu);
    return threads;
  }
};

// Adaptive group commit alone closes a group, with the default two syncs
// in flight.
JournalOptions Adaptive(const TempDir& dir) {
  return testing::AdaptiveOnly(dir, /*max_syncs_in_flight=*/2);
}

// A journal with adaptive group commit on a gated Env, and two adds: a,
// whose sync is held at the gate on the journal thread, and b, queued
// behind it.
struct HeldLoneAdd {
  TempDir dir{TempDir::Where::kMemory};
  SyncGate gate;
  FaultInjectionEnv env{Env::Default()};
  std::unique_ptr<Journal> j;
  std::shared_ptr<AddWaiter> a = std::make_shared<AddWaiter>();
  std::shared_ptr<AddWaiter> b = std::make_shared<AddWaiter>();

  // `notify` makes each add's callback.
  explicit HeldLoneAdd(
      const std::function<JournalCallback(std::shared_ptr<AddWaiter>)>&
          notify) {
    env.SetSyncGate(&gate);
    j = Started(&env, Adaptive(dir));
    gate.Hold();
    REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), notify(a)).ok());
    REQUIRE(gate.AwaitSyncs(1));  // a's sync is held on the journal thread
    REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), notify(b)).ok());
  }
  ~HeldLoneAdd() {
    gate.Open();  // before the journal stops, or it waits for a held sync
    j.reset();
  }
};

TEST_CASE("a lone add is synced and completed on the journal thread",
          "[journal]") {
  Callback calls;  // before the journal, which is stopped first
  HeldLoneAdd t([&](std::shared_ptr<AddWaiter> w) { return calls.Notify(w); });
  // The journal thread is inside a's sync: b cannot have been written.
  CHECK(t.j->Stats().groups_written == 1);
  t.gate.Release(1);
  REQUIRE(t.a->Ready());
  CHECK(t.a->future.get().ok());
  // b is written after a's sync returned, and needs a sync of its own.
  REQUIRE(t.gate.AwaitSyncs(2));
  CHECK(t.b->future.wait_for(std::chrono::seconds(0)) !=
        std::future_status::ready);
  t.gate.Release(1);
  REQUIRE(t.b->Ready());
  CHECK(t.b->future.get().ok());
  t.j->Stop();
  CHECK(t.j->Stats().groups_written == 2);
  CHECK(t.j->Stats().syncs == 2);
  CHECK(calls.Threads() ==
        std::vector<std::string>{"bk-journal", "bk-journal"});
}

TEST_CASE("a failed sync on the journal thread fails what follows, no retry",
          "[journal]") {
  HeldLoneAdd t(testing::Notify);
  t.gate.Release(1, absl::DataLossError("fdatasync: EIO (injected)"));
  REQUIRE(t.a->Ready());
  REQUIRE(t.b->Ready());
  CHECK_FALSE(t.a->future.get().ok());
  CHECK_FALSE(t.b->future.get().ok());  // queued behind a failed sync
  CHECK_FALSE(t.j->Healthy());
  t.gate.Release(100);  // a retry would pass now: there must be none
  t.j->Stop();
  CHECK(t.gate.syncs() == 1);
  CHECK(t.j->Stats().adds_failed == 2);
}

// The SyncThread on its own: when SyncHere declines, nothing is moved.
struct Stage {
  TempDir dir{TempDir::Where::kMemory};
  SyncGate gate;
  FaultInjectionEnv env{Env::Default()};
  CompletionThread completion;
  JournalCounters counters;
  SyncThread sync{&env,
                  &completion,
                  &counters,
                  nullptr,
                  [](const absl::Status& s) { return s; },
                  nullptr,
                  false,
                  2};
  std::unique_ptr<WritableFile> file;

  Stage() {
    env.SetSyncGate(&gate);
    auto f = env.NewWritableFile(dir.path() + "/j.txn");
    REQUIRE(f.ok());
    file = std::move(*f);
    REQUIRE(file->Append("x").ok());
    completion.Start();
    sync.Start();
  }
  ~Stage() {
    gate.Open();
    sync.Stop();
    completion.Stop();
  }
};

std::vector<JournalItem> Items(size_t n, std::shared_ptr<AddWaiter> last) {
  std::vector<JournalItem> items(n);
  for (size_t i = 0; i + 1 < n; ++i) items[i].done = [](absl::Status) {};
  items[n - 1].done = testing::Notify(std::move(last));
  return items;
}

TEST_CASE("a group above the inline limit is not synced on the caller",
          "[journal]") {
  Stage s;
  auto w = std::make_shared<AddWaiter>();
  std::vector<JournalItem> items =
      Items(CompletionThread::kMaxInlineItems + 1, w);
  CHECK_FALSE(s.sync.SyncHere(s.file.get(), &items, 1, GroupWriteTiming{}));
  REQUIRE(items.size() == CompletionThread::kMaxInlineItems + 1);
  CHECK(items.back().done != nullptr);  // still the caller's
  CHECK(s.counters.syncs.load() == 0);
}

TEST_CASE("a group is not synced on the caller while a sync runs",
          "[journal]") {
  Stage s;
  s.gate.Hold();
  auto first = std::make_shared<AddWaiter>();
  s.sync.Submit(s.file.get(), Items(1, first), 1, GroupWriteTiming{},
                absl::OkStatus());
  REQUIRE(s.gate.AwaitSyncs(1));  // held on the sync thread
  auto second = std::make_shared<AddWaiter>();
  std::vector<JournalItem> items = Items(1, second);
  CHECK_FALSE(s.sync.SyncHere(s.file.get(), &items, 1, GroupWriteTiming{}));
  REQUIRE(items.size() == 1);
  CHECK(items.back().done != nullptr);
  s.gate.Release(1);
  REQUIRE(first->Ready());
  CHECK(first->future.get().ok());
  // Idle again once the first batch has left the sync thread (its callback
  // runs before that): now the caller syncs it, complete on return.
  s.sync.Drain();
  s.gate.Release(1);
  CHECK(s.sync.SyncHere(s.file.get(), &items, 1, GroupWriteTiming{}));
  CHECK(second->future.wait_for(std::chrono::seconds(0)) ==
        std::future_status::ready);
  CHECK(second->future.get().ok());
  CHECK(s.counters.syncs.load() == 2);
}

}  // namespace
}  // namespace bk::bookie
