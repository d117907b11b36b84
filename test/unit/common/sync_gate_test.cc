// SyncGate on a FaultInjectionEnv: held syncs, permits, injected failures.

#include "common/sync_gate.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

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

}  // namespace
}  // namespace bk
