// The journal's force-write stage (sync_thread.h): the next group is written
// while the previous one is being synced, one sync covers every group
// written meanwhile, nothing is acknowledged before a sync that started
// after its write has returned, and a failed sync fails every group it would
// have covered and is never retried.
//
// A SyncGate (common/sync_gate.h) on a FaultInjectionEnv holds syncs until
// the test lets them go, so every interleaving below is forced, not hoped
// for.

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "bookie/journal/journal.h"
#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

// Every add its own group, written at once; the pipeline does not depend on
// how a group is written. One sync at a time (BookKeeper's force-write
// thread, journalMaxSyncsInFlight=1); several: syncs_in_flight_test.cc.
// Not adaptive, which syncs a lone group on the journal thread instead
// (completion_handoff_test.cc): every group goes through the sync thread.
JournalOptions Immediate(const TempDir& dir) {
  JournalOptions o = testing::GroupPerAdd(dir);
  o.max_syncs_in_flight = 1;
  o.adaptive_group_commit = false;
  return o;
}

bool Done(const std::shared_ptr<AddWaiter>& w) {
  return w->future.wait_for(std::chrono::seconds(0)) ==
         std::future_status::ready;
}

TEST_CASE("the next group is written while the previous one is synced",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto j = Started(&env, Immediate(dir));
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), Notify(a)).ok());
  REQUIRE(gate.AwaitSyncs(1));  // a's sync is held
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));  // b written during a's sync
  CHECK_FALSE(Done(a));
  CHECK_FALSE(Done(b));
  gate.Release(1);  // a's sync returns; b was written after it started
  REQUIRE(a->Ready());
  CHECK(a->future.get().ok());
  REQUIRE(gate.AwaitSyncs(2));  // so b needs a sync of its own
  CHECK_FALSE(Done(b));
  gate.Release(1);
  REQUIRE(b->Ready());
  CHECK(b->future.get().ok());
  CHECK(j->Stats().syncs == 2);
}

TEST_CASE("one sync covers every group written while the last one ran",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto j = Started(&env, Immediate(dir));
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto first = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("first"), Notify(first)).ok());
  REQUIRE(gate.AwaitSyncs(1));
  std::vector<std::shared_ptr<AddWaiter>> later;
  for (int i = 1; i <= 5; ++i) {
    later.push_back(std::make_shared<AddWaiter>());
    REQUIRE(
        j->Add(RT::kEntry, 1, i, Payload("later"), Notify(later.back())).ok());
    REQUIRE(gate.AwaitWrites(i + 1));
  }
  // One more write: the journal thread hands a group to the sync thread
  // before it writes the next, so the five are queued for syncing now.
  auto marker = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 6, Payload("marker"), Notify(marker)).ok());
  REQUIRE(gate.AwaitWrites(7));
  gate.Release(1);
  REQUIRE(first->Ready());
  CHECK(first->future.get().ok());
  REQUIRE(gate.AwaitSyncs(2));
  gate.Release(1);  // two syncs in all: the second covers all five
  for (auto& w : later) {
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
  }
  gate.Release(1);  // the marker may need a third
  REQUIRE(marker->Ready());
  CHECK(marker->future.get().ok());
  CHECK(j->Stats().groups_written == 7);
  CHECK(j->Stats().syncs <= 3);
}

using testing::AdaptiveOnly;

TEST_CASE("a lone add is written at once when nothing is being synced",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto j = Started(&env, AdaptiveOnly(dir));
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("alone"), Notify(w)).ok());
  REQUIRE(w->Ready());  // not after the hour of max_group_wait
  CHECK(w->future.get().ok());
}

TEST_CASE(
    "while a sync runs adds fill one group, written when the sync stage "
    "goes idle",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto j = Started(&env, AdaptiveOnly(dir));
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto first = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("first"), Notify(first)).ok());
  REQUIRE(gate.AwaitSyncs(1));  // written alone, its sync held
  std::vector<std::shared_ptr<AddWaiter>> later;
  for (int i = 1; i <= 4; ++i) {
    later.push_back(std::make_shared<AddWaiter>());
    REQUIRE(
        j->Add(RT::kEntry, 1, i, Payload("later"), Notify(later.back())).ok());
  }
  CHECK(j->Stats().groups_written == 1);  // the four wait in the group
  gate.Release(1);
  REQUIRE(first->Ready());
  REQUIRE(gate.AwaitSyncs(2));  // the sync stage went idle: one group
  gate.Release(1);
  for (auto& w : later) {
    REQUIRE(w->Ready());
    CHECK(w->future.get().ok());
  }
  CHECK(j->Stats().groups_written == 2);
  CHECK(j->Stats().syncs == 2);
}

TEST_CASE("a failed sync fails the groups written while it ran, no retry",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto j = Started(&env, Immediate(dir));
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), Notify(a)).ok());
  REQUIRE(gate.AwaitSyncs(1));
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));
  gate.Release(1, absl::DataLossError("fdatasync: EIO (injected)"));
  REQUIRE(a->Ready());
  REQUIRE(b->Ready());
  CHECK_FALSE(a->future.get().ok());
  CHECK_FALSE(b->future.get().ok());  // written, but never made durable
  CHECK_FALSE(j->Healthy());
  CHECK_FALSE(j->Add(RT::kEntry, 1, 2, Payload("c"), [](absl::Status) {}).ok());
  gate.Release(100);  // a retry would pass now: there must be none
  j->Stop();
  CHECK(gate.syncs() == 1);
  CHECK(j->Stats().adds_failed == 2);
}

TEST_CASE("a power cut keeps exactly the groups a finished sync covered",
          "[journal]") {
  // The fault Env notes what was written when the sync began, before the
  // gate holds it, so a group written during a held sync is not durable.
  TempDir dir(TempDir::Where::kMemory);
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  const JournalOptions o = Immediate(dir);
  auto j = Started(&env, o);
  OpenGateOnExit open_on_exit(&gate);
  gate.Hold();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 7, 0, Payload("acked"), Notify(a)).ok());
  REQUIRE(gate.AwaitSyncs(1));
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 7, 1, Payload("unacked"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));
  gate.Release(1);
  REQUIRE(a->Ready());
  REQUIRE(a->future.get().ok());
  REQUIRE(gate.AwaitSyncs(2));  // b's sync is held: b is not durable
  CHECK_FALSE(Done(b));
  REQUIRE(env.PowerCut().ok());
  gate.Release(100);
  REQUIRE(b->Ready());
  CHECK_FALSE(b->future.get().ok());  // its sync was cut short
  j->Stop();
  env.Restart();

  Journal replayed(&env, o);
  std::vector<std::string> records;
  REQUIRE(replayed
              .Replay([&](const JournalRecordView& r) {
                records.push_back(std::string(r.payload));
                return absl::OkStatus();
              })
              .ok());
  CHECK(records == std::vector<std::string>{"acked"});
}

}  // namespace
}  // namespace bk::bookie
