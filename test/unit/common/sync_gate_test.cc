// SyncGate on a FaultInjectionEnv: held syncs, permits, injected failures.

#include "common/sync_gate.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "common/fault_env.h"
#include "test/support/temp_dir.h"

namespace bk {
namespace {

std::unique_ptr<WritableFile> Open(Env* env, const std::string& path) {
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  return std::move(*w);
}

TEST_CASE("a held sync waits for a permit, writes meanwhile are counted",
          "[common][fault]") {
  testing::TempDir dir;
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto w = Open(&env, dir.Sub("log"));
  REQUIRE(w->Append("before").ok());
  gate.Hold();
  std::atomic<bool> synced{false};
  absl::Status result = absl::UnknownError("not synced");
  std::jthread syncer([&] {
    result = w->Sync();
    synced = true;
  });
  OpenGateOnExit open_on_exit(&gate);  // before the join, if a REQUIRE fails
  REQUIRE(gate.AwaitSyncs(1));
  CHECK_FALSE(synced.load());  // held: no permit yet
  CHECK(env.UnsyncedBytes() == 6);
  REQUIRE(w->Append("during").ok());  // the file is usable meanwhile
  REQUIRE(gate.AwaitWrites(1));
  gate.Release(1);
  syncer.join();
  CHECK(result.ok());
  // The sync covered what was written before it began, not during it.
  CHECK(env.UnsyncedBytes() == 6);
}

TEST_CASE(
    "a sync released with an error fails and breaks the file, a retry "
    "still reaches the gate",
    "[common][fault]") {
  testing::TempDir dir;
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto w = Open(&env, dir.Sub("log"));
  REQUIRE(w->Append("data").ok());
  gate.Hold();
  gate.Release(1, absl::DataLossError("fdatasync: EIO (injected)"));
  CHECK(absl::IsDataLoss(w->Sync()));
  CHECK_FALSE(w->Append("more").ok());  // broken, as after a real failure
  gate.Release(1);
  CHECK_FALSE(w->Sync().ok());  // sticky, but the gate saw the retry
  CHECK(gate.syncs() == 2);
  CHECK(env.sync_count() == 0);  // no sync reached the disk
}

TEST_CASE("Open lets held syncs through, unmatched files are never held",
          "[common][fault]") {
  testing::TempDir dir;
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate, ".log");
  auto other = Open(&env, dir.Sub("index"));
  auto log = Open(&env, dir.Sub("1.log"));
  gate.Hold();
  CHECK(other->Sync().ok());  // not a .log: passes while the gate holds
  CHECK(gate.syncs() == 0);
  absl::Status result = absl::UnknownError("not synced");
  std::jthread syncer([&] { result = log->Sync(); });
  OpenGateOnExit open_on_exit(&gate);  // before the join, if a REQUIRE fails
  REQUIRE(gate.AwaitSyncs(1));
  gate.Open();
  syncer.join();
  CHECK(result.ok());
  CHECK(log->Sync().ok());  // open: no longer held
  CHECK(gate.syncs() == 1);
}

TEST_CASE(
    "held syncs pass in the order they arrived, or the one a test chooses",
    "[common][fault]") {
  testing::TempDir dir;
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate);
  auto w = Open(&env, dir.Sub("log"));
  REQUIRE(w->Append("data").ok());
  gate.Hold();
  absl::Mutex mu;
  std::vector<int> passed;  // syncer numbers, in the order they returned
  std::vector<absl::Status> results(3);
  std::vector<std::jthread> syncers;
  OpenGateOnExit open_on_exit(&gate);  // before the joins
  for (int i = 0; i < 3; ++i) {
    syncers.emplace_back([&, i] {
      absl::Status s = w->Sync();
      absl::MutexLock l(&mu);
      results[i] = std::move(s);
      passed.push_back(i);
    });
    REQUIRE(gate.AwaitSyncs(i + 1));  // syncer i holds ticket i
  }
  auto count = [&](size_t n) {
    absl::MutexLock l(&mu);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return passed.size() >= n;
    };
    return mu.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  };
  gate.ReleaseSync(2, absl::DataLossError("injected"));  // the last first
  REQUIRE(count(1));
  gate.Release(1);  // in line: the oldest held, syncer 0
  REQUIRE(count(2));
  gate.Release(1);
  REQUIRE(count(3));
  absl::MutexLock l(&mu);
  CHECK(passed == std::vector<int>{2, 0, 1});
  CHECK_FALSE(results[2].ok());
  // The file broke with syncer 2's failure, whatever the others' permits.
  CHECK_FALSE(results[0].ok());
  CHECK_FALSE(results[1].ok());
}

}  // namespace
}  // namespace bk
