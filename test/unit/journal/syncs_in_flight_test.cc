// Several syncs of one journal file at once (journalMaxSyncsInFlight,
// sync_thread.h): a group written while a sync runs is synced beside it,
// groups still complete in the order they were written, nothing is
// acknowledged before a sync that started after its write, and a failed
// sync fails every group after it, also one whose own sync returned OK.
//
// A SyncGate holds the syncs (in the order they arrive, or one chosen by
// its ticket), so every interleaving below is forced, not hoped for.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bookie/journal/journal.h"
#include "common/env.h"
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

// Counts the syncs that have returned (after the gate and the real sync),
// so a test can wait until a sync is done and its group only waits for its
// turn.
class SyncReturnsEnv : public EnvWrapper {
 public:
  explicit SyncReturnsEnv(Env* target) : EnvWrapper(target) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    auto f = target()->NewWritableFile(path);
    if (!f.ok()) return f;
    return std::unique_ptr<WritableFile>(new File(this, std::move(*f)));
  }

  int returned() {
    absl::MutexLock l(&mu_);
    return returned_;
  }
  bool AwaitReturned(int n) {
    absl::MutexLock l(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return returned_ >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }

 private:
  class File : public WritableFile {
   public:
    File(SyncReturnsEnv* env, std::unique_ptr<WritableFile> base)
        : env_(env), base_(std::move(base)) {}
    absl::Status Append(absl::string_view d) override {
      return base_->Append(d);
    }
    absl::Status AppendV(const struct iovec* iov, int n) override {
      return base_->AppendV(iov, n);
    }
    absl::Status Sync(bool metadata) override {
      absl::Status s = base_->Sync(metadata);
      absl::MutexLock l(&env_->mu_);
      ++env_->returned_;
      return s;
    }
    absl::Status Preallocate(uint64_t b) override {
      return base_->Preallocate(b);
    }
    void DropCachedRange(uint64_t offset, uint64_t length) override {
      base_->DropCachedRange(offset, length);
    }
    absl::Status Close() override { return base_->Close(); }
    uint64_t Size() const override { return base_->Size(); }
    const std::string& path() const override { return base_->path(); }

   private:
    SyncReturnsEnv* const env_;
    std::unique_ptr<WritableFile> base_;
  };

  absl::Mutex mu_;
  int returned_ ABSL_GUARDED_BY(mu_) = 0;
};

// A fault Env with a gate, and the counting Env over it.
struct GatedEnv {
  SyncGate gate;
  FaultInjectionEnv fault{Env::Default()};
  SyncReturnsEnv env{&fault};
  GatedEnv() { fault.SetSyncGate(&gate); }
};

// Two syncs in flight (the default, set here all the same). Not adaptive:
// a lone group would be synced on the journal thread, which then writes
// nothing until that sync returns (completion_handoff_test.cc).
JournalOptions TwoInFlight(const TempDir& dir) {
  JournalOptions o = testing::GroupPerAdd(dir);
  o.max_syncs_in_flight = 2;
  o.adaptive_group_commit = false;
  return o;
}

bool Done(const std::shared_ptr<AddWaiter>& w) {
  return w->future.wait_for(std::chrono::seconds(0)) ==
         std::future_status::ready;
}

// Records the order in which adds complete.
struct Order {
  absl::Mutex mu;
  std::vector<std::string> done ABSL_GUARDED_BY(mu);
  JournalCallback Track(std::string name, std::shared_ptr<AddWaiter> w) {
    return [this, name = std::move(name), w](absl::Status s) {
      {
        absl::MutexLock l(&mu);
        done.push_back(name);
      }
      w->promise.set_value(std::move(s));
    };
  }
  std::vector<std::string> Done() {
    absl::MutexLock l(&mu);
    return done;
  }
};

// Adds a and b, each written once the previous sync is held at the gate:
// a's sync has ticket 0, b's ticket 1, both held.
void AddTwoHeld(GatedEnv* e, Journal* j, JournalCallback a, JournalCallback b) {
  e->gate.Hold();
  REQUIRE(j->Add(RT::kEntry, 1, 0, Payload("a"), std::move(a)).ok());
  REQUIRE(e->gate.AwaitSyncs(1));
  REQUIRE(j->Add(RT::kEntry, 1, 1, Payload("b"), std::move(b)).ok());
  // b's sync starts while a's is still held: one journal, two syncs.
  REQUIRE(e->gate.AwaitSyncs(2));
}

TEST_CASE(
    "with two syncs in flight a group written during a sync is synced "
    "beside it",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  GatedEnv e;
  auto j = Started(&e.env, TwoInFlight(dir));
  OpenGateOnExit open_on_exit(&e.gate);
  auto a = std::make_shared<AddWaiter>();
  auto b = std::make_shared<AddWaiter>();
  AddTwoHeld(&e, j.get(), Notify(a), Notify(b));
  CHECK_FALSE(Done(a));
  CHECK_FALSE(Done(b));
  e.gate.Release(1);  // the first to arrive: a's
  REQUIRE(a->Ready());
  CHECK(a->future.get().ok());
  CHECK_FALSE(Done(b));  // its own sync is still held
  e.gate.Release(1);
  REQUIRE(b->Ready());
  CHECK(b->future.get().ok());
  CHECK(j->Stats().syncs == 2);
  CHECK(e.fault.UnsyncedBytes() == 0);
}

TEST_CASE(
    "a group whose sync returns first waits for the group before it, and "
    "fails with it",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  GatedEnv e;
  auto j = Started(&e.env, TwoInFlight(dir));
  OpenGateOnExit open_on_exit(&e.gate);
  Order order;
  auto a = std::make_shared<AddWaiter>();
  auto b = std::make_shared<AddWaiter>();
  AddTwoHeld(&e, j.get(), order.Track("a", a), order.Track("b", b));
  const int returned = e.env.returned();  // the file's first syncs
  e.gate.ReleaseSync(1);  // b's sync (the second ticket) really runs first
  REQUIRE(e.env.AwaitReturned(returned + 1));
  // b is durable, and a with it (b's sync began after a was written), but
  // b waits for a's turn.
  CHECK(e.fault.UnsyncedBytes() == 0);
  CHECK_FALSE(Done(b));
  CHECK_FALSE(Done(a));

  SECTION("a's sync returns OK: a completes, then b") {
    e.gate.ReleaseSync(0);
    REQUIRE(a->Ready());
    REQUIRE(b->Ready());
    CHECK(a->future.get().ok());
    CHECK(b->future.get().ok());
    CHECK(order.Done() == std::vector<std::string>{"a", "b"});
  }

  SECTION("a's sync fails: so does b, although its own sync returned OK") {
    e.gate.ReleaseSync(0, absl::DataLossError("injected EIO"));
    REQUIRE(a->Ready());
    REQUIRE(b->Ready());
    CHECK_FALSE(a->future.get().ok());
    CHECK_FALSE(b->future.get().ok());
    CHECK(order.Done() == std::vector<std::string>{"a", "b"});
    CHECK(j->Stats().adds_failed == 2);
    // Later adds fail too, without another sync (never retried).
    auto c = std::make_shared<AddWaiter>();
    absl::Status added = j->Add(RT::kEntry, 1, 2, Payload("c"), Notify(c));
    if (added.ok()) {
      REQUIRE(c->Ready());
      CHECK_FALSE(c->future.get().ok());
    }
    CHECK(e.gate.syncs() == 2);
  }
}

TEST_CASE(
    "with both syncs busy, a group written meanwhile waits for one of "
    "them to end",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  GatedEnv e;
  auto j = Started(&e.env, TwoInFlight(dir));
  OpenGateOnExit open_on_exit(&e.gate);
  std::vector<std::shared_ptr<AddWaiter>> w;
  for (int i = 0; i < 3; ++i) w.push_back(std::make_shared<AddWaiter>());
  AddTwoHeld(&e, j.get(), Notify(w[0]), Notify(w[1]));
  REQUIRE(j->Add(RT::kEntry, 1, 2, Payload("c"), Notify(w[2])).ok());
  REQUIRE(e.gate.AwaitWrites(3));
  // c is written, but both sync threads are held: no third sync.
  CHECK(e.gate.syncs() == 2);
  CHECK_FALSE(Done(w[2]));
  e.gate.Release(1);  // a's sync returns and frees its thread
  REQUIRE(w[0]->Ready());
  REQUIRE(e.gate.AwaitSyncs(3));  // now c's
  CHECK_FALSE(Done(w[2]));
  e.gate.Release(2);
  for (auto& x : w) {
    REQUIRE(x->Ready());
    CHECK(x->future.get().ok());
  }
  CHECK(j->Stats().syncs == 3);
  CHECK(e.fault.UnsyncedBytes() == 0);
}

TEST_CASE("journalMaxSyncsInFlight outside 1..8 is refused", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o = testing::GroupPerAdd(dir);
  o.max_syncs_in_flight = 0;
  CHECK(absl::IsInvalidArgument(o.Validate()));
  o.max_syncs_in_flight = 9;
  CHECK(absl::IsInvalidArgument(o.Validate()));
  o.max_syncs_in_flight = 8;
  CHECK(o.Validate().ok());
}

}  // namespace
}  // namespace bk::bookie
