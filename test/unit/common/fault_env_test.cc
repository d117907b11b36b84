#include "common/fault_env.h"

#include <errno.h>

#include <catch2/catch.hpp>

#include "test/support/temp_dir.h"

namespace bk {
namespace {

std::unique_ptr<WritableFile> Open(Env* env, const std::string& path) {
  auto w = env->NewWritableFile(path);
  REQUIRE(w.ok());
  return std::move(*w);
}

TEST_CASE("a power cut drops exactly the unsynced bytes", "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  REQUIRE(env.SyncDir(dir.path()).ok());
  auto w = Open(&env, dir.Sub("log"));
  REQUIRE(env.SyncDir(dir.path()).ok());  // the name is durable
  REQUIRE(w->Append("synced-part").ok());
  REQUIRE(w->Sync().ok());
  REQUIRE(w->Append("lost-part").ok());
  CHECK(env.UnsyncedBytes() == 9);
  REQUIRE(env.PowerCut().ok());
  // The old handle is dead after the cut.
  CHECK_FALSE(w->Append("more").ok());
  w.reset();
  env.Restart();
  CHECK(*env.ReadFileToString(dir.Sub("log")) == "synced-part");
}

TEST_CASE("a power cut removes files whose directory was never synced",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto w = Open(&env, dir.Sub("new"));
  REQUIRE(w->Append("data").ok());
  REQUIRE(w->Sync().ok());  // data synced, but the name is not
  REQUIRE(env.PowerCut().ok());
  env.Restart();
  CHECK_FALSE(env.FileExists(dir.Sub("new")));
}

TEST_CASE("the nth sync fails with the armed errno and the file stays broken",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto w = Open(&env, dir.Sub("j"));
  env.FailNth(FaultInjectionEnv::Op::kSync, 2, EIO);
  REQUIRE(w->Append("a").ok());
  REQUIRE(w->Sync().ok());
  REQUIRE(w->Append("b").ok());
  absl::Status s = w->Sync();
  CHECK(s.code() == absl::StatusCode::kInternal);
  // Sticky: no later call on the file succeeds, even with no fault armed.
  CHECK_FALSE(w->Append("c").ok());
  CHECK_FALSE(w->Sync().ok());
  // Other files are unaffected.
  auto other = Open(&env, dir.Sub("k"));
  REQUIRE(other->Append("x").ok());
  CHECK(other->Sync().ok());
}

TEST_CASE("the nth write fails with ENOSPC only on matching paths",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto journal = Open(&env, dir.Sub("journal.log"));
  auto entry = Open(&env, dir.Sub("entry.log"));
  env.FailNth(FaultInjectionEnv::Op::kWrite, 1, ENOSPC, "entry");
  CHECK(journal->Append("ok").ok());
  CHECK(entry->Append("full").code() == absl::StatusCode::kResourceExhausted);
}

TEST_CASE("a torn write leaves only the prefix of that write",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  REQUIRE(env.SyncDir(dir.path()).ok());
  auto w = Open(&env, dir.Sub("j"));
  REQUIRE(env.SyncDir(dir.path()).ok());
  REQUIRE(w->Append("0123").ok());
  env.TearNthWrite(1, 3);
  struct iovec iov[2] = {{const_cast<char*>("ab"), 2},
                         {const_cast<char*>("cdef"), 4}};
  CHECK_FALSE(w->AppendV(iov, 2).ok());
  // The machine is down: nothing more gets written.
  CHECK_FALSE(env.NewWritableFile(dir.Sub("other")).ok());
  w.reset();
  env.Restart();
  CHECK(*env.ReadFileToString(dir.Sub("j")) == "0123abc");
}

TEST_CASE("no-space mode fails every write until cleared", "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto a = Open(&env, dir.Sub("a"));
  env.SetNoSpace(true);
  CHECK(a->Append("x").code() == absl::StatusCode::kResourceExhausted);
  env.ClearFaults();
  auto b = Open(&env, dir.Sub("b"));
  CHECK(b->Append("x").ok());
}

TEST_CASE("the sync delay slows every sync by at least the delay",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncDelay(absl::Milliseconds(20));
  auto w = Open(&env, dir.Sub("slow"));
  REQUIRE(w->Append("x").ok());
  const int64_t start = env.NowMonotonicNanos();
  REQUIRE(w->Sync().ok());
  // A lower bound only: the delay is a floor, never a ceiling.
  CHECK(env.NowMonotonicNanos() - start >= 20'000'000);
  CHECK(env.sync_count() == 1);
}

TEST_CASE("rename carries the synced state to the new name",
          "[common][fault]") {
  testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  REQUIRE(env.WriteFileAtomic(dir.Sub("checkpoint"), "v1").ok());
  REQUIRE(env.PowerCut().ok());
  env.Restart();
  CHECK(*env.ReadFileToString(dir.Sub("checkpoint")) == "v1");
}

}  // namespace
}  // namespace bk
