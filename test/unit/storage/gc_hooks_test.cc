// The hooks through which the owner takes part in GC: the deleted-ledger
// filter made afresh for each background pass, and the listener told of
// each ledger GC deleted or purged.

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "test/support/clock_env.h"
#include "test/support/poll_until.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ClockEnv;
using bk::testing::TempDir;
using testing::MakeEntry;
using testing::SmallOptions;

void AddLedger(LedgerStorage* s, uint64_t ledger, int64_t entries) {
  for (int64_t e = 0; e < entries; ++e) {
    REQUIRE(s->AddEntry(ledger, e, MakeEntry(ledger, e)).ok());
  }
}

struct Removed {
  absl::Mutex mu;
  std::vector<uint64_t> ids ABSL_GUARDED_BY(mu);
  LedgerRemovedFn Fn() {
    return [this](uint64_t id) {
      absl::MutexLock l(&mu);
      ids.push_back(id);
    };
  }
  std::vector<uint64_t> Get() {
    absl::MutexLock l(&mu);
    return ids;
  }
};

TEST_CASE(
    "the removal listener hears each ledger GC deletes and each tombstone it "
    "purges, once",
    "[storage][gc]") {
  TempDir dir;
  ClockEnv env(Env::Default());
  LedgerStorageOptions o = SmallOptions(dir.path());
  o.ledger_dirs = {dir.Sub("a"), dir.Sub("b")};
  o.deleted_ledger_retention = absl::Hours(1);
  auto s = LedgerStorage::Open(&env, o);
  REQUIRE(s.ok());
  Removed removed;
  (*s)->SetLedgerRemovedListener(removed.Fn());
  for (uint64_t l = 1; l <= 6; ++l) AddLedger(s->get(), l, 5);
  REQUIRE((*s)->Flush().ok());

  // Each directory asks in ascending order.
  std::vector<uint64_t> asked;
  auto r = (*s)->RunGc(
      [&](uint64_t id) {
        asked.push_back(id);
        return id == 2 || id == 5;
      },
      0.0);
  REQUIRE(r.ok());
  CHECK(r->deleted_ledgers == 2);
  CHECK(removed.Get() == std::vector<uint64_t>{2, 5});
  REQUIRE(asked.size() == 6);
  std::vector<uint64_t> first(asked.begin(), asked.begin() + 3);
  std::vector<uint64_t> second(asked.begin() + 3, asked.end());
  CHECK(std::is_sorted(first.begin(), first.end()));
  CHECK(std::is_sorted(second.begin(), second.end()));

  // Nothing more until the purge.
  REQUIRE((*s)->RunGc(nullptr, 0.0).ok());
  CHECK(removed.Get().size() == 2);
  REQUIRE((*s)->Flush().ok());
  env.Advance(absl::Hours(2));
  r = (*s)->RunGc(nullptr, 0.0);
  REQUIRE(r.ok());
  CHECK(r->purged_ledgers == 2);
  std::vector<uint64_t> got = removed.Get();
  CHECK(std::multiset<uint64_t>(got.begin() + 2, got.end()) ==
        std::multiset<uint64_t>{2, 5});
}

TEST_CASE(
    "the background GC makes a new filter for each pass and deletes what it "
    "reports",
    "[storage][gc]") {
  TempDir dir;
  LedgerStorageOptions o = SmallOptions(dir.path());
  o.gc_wait_time = absl::Milliseconds(1);
  auto s = LedgerStorage::Open(Env::Default(), o);
  REQUIRE(s.ok());
  Removed removed;
  (*s)->SetLedgerRemovedListener(removed.Fn());
  AddLedger(s->get(), 1, 5);
  AddLedger(s->get(), 2, 5);
  absl::Mutex mu;
  int passes = 0;
  (*s)->SetDeletedLedgerFilter([&]() -> LedgerDeletedFn {
    absl::MutexLock l(&mu);
    ++passes;
    return [](uint64_t id) { return id == 2; };
  });
  {
    absl::MutexLock l(&mu);
    auto two_passes = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return passes >= 2;
    };
    REQUIRE(
        mu.AwaitWithTimeout(absl::Condition(&two_passes), absl::Seconds(30)));
  }
  // The second pass began after the first had finished deleting.
  CHECK_FALSE((*s)->LedgerExists(2));
  CHECK((*s)->LedgerExists(1));
  CHECK(removed.Get() == std::vector<uint64_t>{2});
  CHECK((*s)->GetStats().deleted_ledgers == 1);
  s->reset();  // stops the GC thread before what its hooks use goes
}

// Counts the background GC's passes: it makes a filter at the start of each.
struct Passes {
  absl::Mutex mu;
  int n ABSL_GUARDED_BY(mu) = 0;
  DeletedLedgerFilterFactory Factory(LedgerDeletedFn deleted) {
    return [this, deleted]() -> LedgerDeletedFn {
      absl::MutexLock l(&mu);
      ++n;
      return deleted;
    };
  }
  int Get() {
    absl::MutexLock l(&mu);
    return n;
  }
  // Waits until pass `k` has begun, so pass k - 1 has finished.
  bool AwaitBegun(int k) {
    absl::MutexLock l(&mu);
    auto begun = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return n >= k; };
    return mu.AwaitWithTimeout(absl::Condition(&begun), absl::Seconds(30));
  }
};

TEST_CASE(
    "the background GC compacts a half-live log once the minor compaction "
    "interval has passed on the Env's clock",
    "[storage][gc]") {
  TempDir dir;
  ClockEnv env(Env::Default());
  LedgerStorageOptions o = SmallOptions(dir.path());
  o.entry_log_size_limit = 8
                           << 10;  // several logs; the last is never compacted
  o.gc_wait_time = absl::Milliseconds(1);
  o.minor_compaction_interval = absl::Hours(1);
  o.minor_compaction_threshold = 0.9;
  auto s = LedgerStorage::Open(&env, o);
  REQUIRE(s.ok());
  // Every log holds all four ledgers; two of them are deleted.
  for (int round = 0; round < 3; ++round) {
    for (uint64_t l = 1; l <= 4; ++l) {
      for (int64_t e = round * 10; e < (round + 1) * 10; ++e) {
        REQUIRE((*s)->AddEntry(l, e, MakeEntry(l, e, 300)).ok());
      }
    }
    REQUIRE((*s)->Flush().ok());
  }
  Passes passes;
  (*s)->SetDeletedLedgerFilter(
      passes.Factory([](uint64_t id) { return id <= 2; }));
  REQUIRE(passes.AwaitBegun(3));  // two passes done, within the hour
  CHECK((*s)->GetStats().deleted_ledgers == 2);
  CHECK((*s)->GetStats().compacted_logs == 0);  // half live: not yet

  env.Advance(absl::Hours(1));
  REQUIRE(passes.AwaitBegun(passes.Get() + 2));  // a whole pass after it
  CHECK((*s)->GetStats().compacted_logs >= 1);
  for (uint64_t l = 3; l <= 4; ++l) {
    for (int64_t e = 0; e < 30; ++e) {
      auto got = (*s)->GetEntry(l, e);
      REQUIRE(got.ok());
      CHECK(testing::IsEntry(*got, l, e, 300));
    }
  }
  s->reset();  // stops the GC thread before `passes` goes
}

TEST_CASE(
    "with gcWaitTime 0 the GC thread runs a pass only when asked, with the "
    "pass's filter, and a forced major pass is counted as one",
    "[storage][gc]") {
  TempDir dir;
  LedgerStorageOptions o = SmallOptions(dir.path());  // gc_wait_time 0
  auto s = LedgerStorage::Open(Env::Default(), o);
  REQUIRE(s.ok());
  for (uint64_t l = 1; l <= 3; ++l) AddLedger(s->get(), l, 5);
  REQUIRE((*s)->Flush().ok());
  (*s)->SetDeletedLedgerFilter(
      [] { return LedgerDeletedFn([](uint64_t id) { return id == 2; }); });
  GcStatus before = (*s)->GetGcStatus();
  CHECK(before.passes == 0);
  CHECK_FALSE(before.force_requested);

  (*s)->RequestGc(/*force_major=*/true, /*force_minor=*/false);
  CHECK(
      ((*s)->GetGcStatus().force_requested || (*s)->GetGcStatus().passes == 1));
  GcStatus after;
  REQUIRE(bk::testing::PollUntil(
      [&] {
        after = (*s)->GetGcStatus();
        return after.passes == 1 && !after.force_requested;
      },
      absl::Seconds(30)));
  CHECK(after.forced_passes == 1);
  CHECK(after.major_compactions == 1);
  CHECK(after.minor_compactions == 0);
  CHECK(after.last_major_compaction_ms > 0);
  CHECK_FALSE(after.running);
  CHECK((*s)->GetStats().deleted_ledgers == 1);
  CHECK_FALSE((*s)->GetEntry(2, 0).ok());
  CHECK((*s)->GetEntry(1, 0).ok());
  s->reset();
}

}  // namespace
}  // namespace bk::bookie
