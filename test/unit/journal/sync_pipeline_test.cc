// The journal's force-write stage (sync_thread.h): the next group is written
// while the previous one is being synced, one sync covers every group
// written meanwhile, nothing is acknowledged before a sync that started
// after its write has returned, and a failed sync fails every group it would
// have covered and is never retried.
//
// A gate Env holds syncs until the test lets them go, so every interleaving
// below is forced, not hoped for.

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bookie/journal/journal.h"
#include "common/fault_env.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::ScratchDir;
using testing::Started;
using RT = journal_format::RecordType;

// Holds every sync once armed until Release() lets it through; a released
// sync may be told to fail instead.
class SyncGate {
 public:
  void Arm() {
    absl::MutexLock l(&mu_);
    armed_ = true;
  }
  // Lets `n` held (or future) syncs through.
  void Release(int n, absl::Status result = absl::OkStatus()) {
    absl::MutexLock l(&mu_);
    permits_ += n;
    result_ = std::move(result);
  }
  // Waits (at most 30 s) until `n` syncs have entered the gate in all.
  bool AwaitEntered(int n) {
    absl::MutexLock l(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return entered_ >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  int entered() {
    absl::MutexLock l(&mu_);
    return entered_;
  }
  // Waits (at most 30 s) until `n` group writes (writev) have returned.
  bool AwaitWrites(int n) {
    absl::MutexLock l(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return writes_ >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  void Wrote() {
    absl::MutexLock l(&mu_);
    if (armed_) ++writes_;
  }

  // Called by a file's Sync: blocks while armed and without a permit.
  // Returns the status the sync should report instead of syncing, if any.
  absl::Status Pass() {
    absl::MutexLock l(&mu_);
    if (!armed_) return absl::OkStatus();
    ++entered_;
    auto permitted = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return permits_ > 0;
    };
    mu_.Await(absl::Condition(&permitted));
    --permits_;
    return result_;
  }

 private:
  absl::Mutex mu_;
  bool armed_ ABSL_GUARDED_BY(mu_) = false;
  int permits_ ABSL_GUARDED_BY(mu_) = 0;
  int entered_ ABSL_GUARDED_BY(mu_) = 0;
  int writes_ ABSL_GUARDED_BY(mu_) = 0;  // since armed
  absl::Status result_ ABSL_GUARDED_BY(mu_);
};

// Declared after the journal: on the way out (also when a REQUIRE failed)
// it opens the gate before the journal's Stop waits for held syncs.
struct OpenOnExit {
  SyncGate* gate;
  ~OpenOnExit() { gate->Release(1 << 20); }
};

class GatedFile final : public WritableFile {
 public:
  GatedFile(std::unique_ptr<WritableFile> base, SyncGate* gate)
      : base_(std::move(base)), gate_(gate) {}
  absl::Status Append(absl::string_view data) override {
    return base_->Append(data);
  }
  absl::Status AppendV(const struct iovec* iov, int iovcnt) override {
    absl::Status s = base_->AppendV(iov, iovcnt);
    gate_->Wrote();
    return s;
  }
  absl::Status Sync(bool metadata) override {
    absl::Status s = gate_->Pass();
    if (!s.ok()) return s;
    return base_->Sync(metadata);
  }
  absl::Status Preallocate(uint64_t bytes) override {
    return base_->Preallocate(bytes);
  }
  absl::Status Close() override { return base_->Close(); }
  uint64_t Size() const override { return base_->Size(); }
  const std::string& path() const override { return base_->path(); }

 private:
  std::unique_ptr<WritableFile> base_;
  SyncGate* const gate_;
};

class GatedEnv final : public EnvWrapper {
 public:
  GatedEnv(Env* target, SyncGate* gate) : EnvWrapper(target), gate_(gate) {}
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    auto f = target()->NewWritableFile(path);
    if (!f.ok()) return f.status();
    return std::unique_ptr<WritableFile>(new GatedFile(std::move(*f), gate_));
  }

 private:
  SyncGate* const gate_;
};

JournalOptions Immediate(const ScratchDir& dir) {
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  o.preallocate_bytes = 1 << 20;
  o.flush_when_queue_empty = true;  // every add is written as its own group
  // The gate counts groups by AppendV; the pipeline does not depend on how a
  // group is written (aligned groups: direct_io_test.cc).
  o.direct_io = false;
  return o;
}

bool Done(const std::shared_ptr<AddWaiter>& w) {
  return w->future.wait_for(std::chrono::seconds(0)) ==
         std::future_status::ready;
}

TEST_CASE("the next group is written while the previous one is synced",
          "[journal]") {
  ScratchDir dir;
  SyncGate gate;
  GatedEnv env(Env::Default(), &gate);
  auto j = Started(&env, Immediate(dir));
  OpenOnExit open_on_exit{&gate};
  gate.Arm();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), Notify(a)).ok());
  REQUIRE(gate.AwaitEntered(1));  // a's sync is held
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));  // b written during a's sync
  CHECK_FALSE(Done(a));
  CHECK_FALSE(Done(b));
  gate.Release(1);  // a's sync returns; b was written after it started
  REQUIRE(a->Ready());
  CHECK(a->future.get().ok());
  REQUIRE(gate.AwaitEntered(2));  // so b needs a sync of its own
  CHECK_FALSE(Done(b));
  gate.Release(1);
  REQUIRE(b->Ready());
  CHECK(b->future.get().ok());
  CHECK(j->Stats().syncs == 2);
}

TEST_CASE("one sync covers every group written while the last one ran",
          "[journal]") {
  ScratchDir dir;
  SyncGate gate;
  GatedEnv env(Env::Default(), &gate);
  auto j = Started(&env, Immediate(dir));
  OpenOnExit open_on_exit{&gate};
  gate.Arm();
  auto first = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("first"), Notify(first)).ok());
  REQUIRE(gate.AwaitEntered(1));
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
  REQUIRE(gate.AwaitEntered(2));
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

// Adaptive group commit: the thresholds and the wait are an hour away, so
// only an idle sync stage closes a group.
JournalOptions Adaptive(const ScratchDir& dir) {
  JournalOptions o = Immediate(dir);
  o.flush_when_queue_empty = false;
  o.max_group_wait = absl::Hours(1);
  o.buffered_writes_threshold_bytes =
      JournalOptions::kMaxBufferedWritesThreshold;
  o.adaptive_group_commit = true;
  return o;
}

TEST_CASE("a lone add is written at once when nothing is being synced",
          "[journal]") {
  ScratchDir dir;
  SyncGate gate;
  GatedEnv env(Env::Default(), &gate);
  auto j = Started(&env, Adaptive(dir));
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("alone"), Notify(w)).ok());
  REQUIRE(w->Ready());  // not after the hour of max_group_wait
  CHECK(w->future.get().ok());
}

TEST_CASE(
    "while a sync runs adds fill one group, written when the sync stage "
    "goes idle",
    "[journal]") {
  ScratchDir dir;
  SyncGate gate;
  GatedEnv env(Env::Default(), &gate);
  auto j = Started(&env, Adaptive(dir));
  OpenOnExit open_on_exit{&gate};
  gate.Arm();
  auto first = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("first"), Notify(first)).ok());
  REQUIRE(gate.AwaitEntered(1));  // written alone, its sync held
  std::vector<std::shared_ptr<AddWaiter>> later;
  for (int i = 1; i <= 4; ++i) {
    later.push_back(std::make_shared<AddWaiter>());
    REQUIRE(
        j->Add(RT::kEntry, 1, i, Payload("later"), Notify(later.back())).ok());
  }
  CHECK(j->Stats().groups_written == 1);  // the four wait in the group
  gate.Release(1);
  REQUIRE(first->Ready());
  REQUIRE(gate.AwaitEntered(2));  // the sync stage went idle: one group
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
  ScratchDir dir;
  SyncGate gate;
  GatedEnv env(Env::Default(), &gate);
  auto j = Started(&env, Immediate(dir));
  OpenOnExit open_on_exit{&gate};
  gate.Arm();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), Notify(a)).ok());
  REQUIRE(gate.AwaitEntered(1));
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
  CHECK(gate.entered() == 1);
  CHECK(j->Stats().adds_failed == 2);
}

TEST_CASE("a power cut keeps exactly the groups a finished sync covered",
          "[journal]") {
  // fault Env outside the gate: it notes what was written when the sync
  // began, so a group written during a held sync is not counted durable.
  ScratchDir dir;
  SyncGate gate;
  GatedEnv gated(Env::Default(), &gate);
  FaultInjectionEnv env(&gated);
  const JournalOptions o = Immediate(dir);
  auto j = Started(&env, o);
  OpenOnExit open_on_exit{&gate};
  gate.Arm();
  auto a = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 7, 0, Payload("acked"), Notify(a)).ok());
  REQUIRE(gate.AwaitEntered(1));
  auto b = std::make_shared<AddWaiter>();
  REQUIRE(j->Add(RT::kEntry, 7, 1, Payload("unacked"), Notify(b)).ok());
  REQUIRE(gate.AwaitWrites(2));
  gate.Release(1);
  REQUIRE(a->Ready());
  REQUIRE(a->future.get().ok());
  REQUIRE(gate.AwaitEntered(2));  // b's sync is held: b is not durable
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
