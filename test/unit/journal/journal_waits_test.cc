// The journal's stage waits (journal_stats.h): how long a group's oldest
// record was queued, how long a written group waited for its sync, and how
// long a synced group waited for its callbacks, each reported to the
// observer (the bookie's bookie_journal_*queue_seconds histograms).
//
// A ClockEnv moves the journal's clock an hour at a chosen moment, and a
// SyncGate or a blocked callback holds a stage there, so each wait is forced
// to be at least that hour (or, for the stages that did not wait, less).

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "bookie/journal/journal.h"
#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "test/support/clock_env.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ClockEnv;
using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

constexpr int64_t kHourNanos = int64_t{3600} * 1000 * 1000 * 1000;

// Every event, in the order reported.
class WaitLog final : public JournalObserver {
 public:
  void OnGroup(const JournalGroupEvent& e) override {
    absl::MutexLock l(&mu_);
    groups_.push_back(e);
  }
  void OnCallbacks(const JournalCallbackEvent& e) override {
    absl::MutexLock l(&mu_);
    callbacks_.push_back(e);
  }
  // Waits (30 s at most) until `n` groups have been reported.
  bool AwaitGroups(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return groups_.size() >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
  }
  std::vector<JournalGroupEvent> groups() {
    absl::MutexLock l(&mu_);
    return groups_;
  }
  std::vector<JournalCallbackEvent> callbacks() {
    absl::MutexLock l(&mu_);
    return callbacks_;
  }

 private:
  absl::Mutex mu_;
  std::vector<JournalGroupEvent> groups_ ABSL_GUARDED_BY(mu_);
  std::vector<JournalCallbackEvent> callbacks_ ABSL_GUARDED_BY(mu_);
};

// One sync at a time, so that a group written during a sync waits for it;
// not adaptive, so that every group goes through the sync thread (a lone
// one would be synced on the journal thread, completion_handoff_test.cc).
JournalOptions Immediate(const TempDir& dir, JournalObserver* observer) {
  JournalOptions o = testing::GroupPerAdd(dir);
  o.observer = observer;
  o.max_syncs_in_flight = 1;
  o.adaptive_group_commit = false;
  return o;
}

TEST_CASE("a group written during the previous sync reports its sync wait",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv faults(Env::Default());
  faults.SetSyncGate(&gate);
  ClockEnv clock(&faults);
  WaitLog log;
  auto j = Started(&clock, Immediate(dir, &log));
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), Notify(a)).ok());
  REQUIRE(gate.AwaitSyncs(1));  // a's sync is held
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));
  // A third write: the journal thread handed b to the sync stage (and took
  // b's write time) before writing it.
  auto c = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 2, Payload("c"), Notify(c)).ok());
  REQUIRE(gate.AwaitWrites(3));
  clock.Advance(absl::Hours(1));  // while a's sync runs and b waits
  gate.Open();
  REQUIRE(a->Ready());
  REQUIRE(b->Ready());
  REQUIRE(c->Ready());
  CHECK(a->future.get().ok());
  CHECK(b->future.get().ok());
  REQUIRE(log.AwaitGroups(3));
  const auto groups = log.groups();
  // a: its sync started at once and took the hour.
  CHECK(groups[0].records == 1);
  CHECK(groups[0].sync_queue_nanos >= 0);
  CHECK(groups[0].sync_queue_nanos < kHourNanos);
  CHECK(groups[0].sync_nanos >= kHourNanos);
  // b: written at once, then waited the hour for a's sync to end.
  CHECK(groups[1].queue_nanos < kHourNanos);
  CHECK(groups[1].sync_queue_nanos >= kHourNanos);
}

TEST_CASE("a record held for its group reports how long it was queued",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  ClockEnv clock(Env::Default());
  WaitLog log;
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.preallocate_bytes = 1 << 20;
  o.adaptive_group_commit = false;  // a lone record waits for company
  o.max_group_wait = absl::Hours(1);
  o.observer = &log;
  auto j = Started(&clock, o);
  auto first = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 3, 0, Payload("first"), Notify(first)).ok());
  clock.Advance(absl::Hours(2));
  // The next record wakes the journal thread, which finds the first older
  // than the group wait and writes it: with the second when the thread had
  // taken the first before the clock moved, alone (the second then waits
  // for Stop) when it had not.
  auto second = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 3, 1, Payload("second"), Notify(second)).ok());
  REQUIRE(first->Ready());
  j->Stop();
  REQUIRE(second->Ready());
  REQUIRE(log.AwaitGroups(1));
  const auto groups = log.groups();
  CHECK(groups[0].records >= 1);
  CHECK(groups[0].queue_nanos >= 2 * kHourNanos);
  CHECK(groups[0].sync_queue_nanos >= 0);
  CHECK(groups[0].sync_queue_nanos < kHourNanos);
}

TEST_CASE("a synced group behind running callbacks reports its wait for them",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  ClockEnv clock(Env::Default());
  WaitLog log;
  auto j = Started(&clock, Immediate(dir, &log));
  // A group too large for the sync thread to complete itself: its callbacks
  // run on the completion thread, the first one blocked until released.
  absl::Notification started, release;
  std::vector<std::shared_ptr<AddWaiter>> big;
  std::vector<JournalRecord> batch;
  const size_t n = CompletionThread::kMaxInlineItems + 1;
  for (size_t i = 0; i < n; ++i) {
    big.push_back(std::make_shared<AddWaiter>());
    JournalRecord r;
    r.ledger_id = 5;
    r.entry_id = static_cast<int64_t>(i);
    r.payload = Payload("big");
    JournalCallback done = Notify(big.back());
    if (i == 0) {
      r.done = [&started, &release,
                done = std::move(done)](absl::Status s) mutable {
        started.Notify();
        release.WaitForNotificationWithTimeout(absl::Seconds(30));
        done(std::move(s));
      };
    } else {
      r.done = std::move(done);
    }
    batch.push_back(std::move(r));
  }
  REQUIRE(j->AddBatch(&batch).ok());
  REQUIRE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  auto lone = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 6, 0, Payload("lone"), Notify(lone)).ok());
  // Reported once synced, just before it is queued behind the blocked
  // callbacks; its ready time is taken before the report.
  REQUIRE(log.AwaitGroups(2));
  clock.Advance(absl::Hours(1));
  release.Notify();
  for (auto& w : big) REQUIRE(w->Ready());
  REQUIRE(lone->Ready());
  CHECK(lone->future.get().ok());
  const auto callbacks = log.callbacks();
  REQUIRE(callbacks.size() == 2);
  CHECK(callbacks[0].records == n);
  CHECK(callbacks[0].queue_nanos < kHourNanos);
  CHECK(callbacks[1].records == 1);
  CHECK(callbacks[1].queue_nanos >= kHourNanos);
}

}  // namespace
}  // namespace bk::bookie
