// Write cache: halves, swap, the flush asked for before a half is full,
// and throttling of adds when both are busy.

#include "bookie/storage/write_cache.h"

#include <catch2/catch.hpp>
#include <thread>

#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "test/support/poll_until.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;

TEST_CASE(
    "write cache refuses an add when the active half is full and "
    "keeps both halves readable",
    "[storage]") {
  WriteCache cache(2 * 1000, 4);
  auto e = MakeEntry(1, 0, 400 - 36);  // 400 bytes packaged
  REQUIRE(e->size() == 400);
  CHECK(cache.Put(1, 0, e, 0));
  CHECK(cache.Put(1, 1, e, 0));
  CHECK_FALSE(cache.Put(1, 2, e, 0));  // 1200 > 1000
  cache.Swap();
  CHECK(cache.Put(1, 2, e, 0));
  CHECK(cache.Get(1, 0) == e);  // flushing half still readable
  CHECK(cache.Get(1, 2) == e);
  CHECK(cache.LastEntry(1) == 2);
  std::vector<WriteCache::Item> items;
  cache.SnapshotFlushing(&items);
  REQUIRE(items.size() == 2);
  CHECK(items[0].entry_id == 0);
  CHECK(items[1].entry_id == 1);
  cache.ClearFlushing();
  CHECK(cache.Get(1, 0) == nullptr);
  CHECK(cache.Get(1, 2) == e);
  CHECK(cache.entry_count() == 1);
}

TEST_CASE(
    "write cache keeps a ledger's entries in entry order whatever the add "
    "order and replaces a re-added entry",
    "[storage]") {
  WriteCache cache(1 << 20, 4);
  for (int64_t id : {5, 1, 3, 7, 0, 6}) {
    REQUIRE(cache.Put(9, id, MakeEntry(9, id), static_cast<uint32_t>(id)));
  }
  REQUIRE(cache.Put(2, 4, MakeEntry(2, 4), 4));
  auto again = MakeEntry(9, 3);
  REQUIRE(cache.Put(9, 3, again, 33));  // replaces
  CHECK(cache.entry_count() == 7);
  CHECK(cache.Get(9, 3) == again);
  CHECK(cache.Get(9, 2) == nullptr);
  CHECK(cache.Get(9, 8) == nullptr);
  CHECK(cache.LastEntry(9) == 7);
  CHECK(cache.LastEntry(4) == -1);
  std::vector<int64_t> ids;
  cache.ListEntries(9, &ids);
  CHECK(ids == std::vector<int64_t>{0, 1, 3, 5, 6, 7});
  cache.Swap();
  std::vector<WriteCache::Item> items;
  cache.SnapshotFlushing(&items);
  REQUIRE(items.size() == 7);
  CHECK(items[0].ledger_id == 2);
  for (size_t i = 2; i < items.size(); ++i) {
    CHECK(items[i].ledger_id == 9);
    CHECK(items[i - 1].entry_id < items[i].entry_id);
  }
  CHECK(items[3].entry_id == 3);
  CHECK(items[3].data_crc == 33u);
}

TEST_CASE("write cache stores the caller's buffer, not a copy", "[storage]") {
  WriteCache cache(1 << 20);
  auto e = MakeEntry(3, 4);
  REQUIRE(cache.Put(3, 4, e, 0));
  CHECK(cache.Get(3, 4)->data() == e->data());
}

TEST_CASE(
    "a flush starts once the active half is three quarters full, before "
    "any add waits for room",
    "[storage]") {
  TempDir dir;
  auto options = testing::SmallOptions(dir.path());
  options.write_cache_bytes = 16 << 10;  // halves of 8 KiB
  options.background_flush = true;
  options.flush_interval = absl::Hours(1);  // no timed flush in this test
  auto storage = LedgerStorage::Open(Env::Default(), options);
  REQUIRE(storage.ok());
  const uint64_t half = 8 << 10;
  const uint64_t size = MakeEntry(1, 0, 1000)->size();
  // Entries that stay below three quarters of a half, and one more.
  const int64_t below = static_cast<int64_t>((half / 4 * 3 - 1) / size);
  REQUIRE((below + 1) * static_cast<int64_t>(size) <
          static_cast<int64_t>(half));
  int64_t next = 0;
  for (int round = 0; round < 20; ++round) {
    INFO("round " << round);
    const uint64_t flushes = (*storage)->GetStats().flushes;
    for (int64_t k = 0; k < below; ++k, ++next) {
      REQUIRE((*storage)->AddEntry(1, next, MakeEntry(1, next, 1000)).ok());
    }
    // Below three quarters no flush is asked for (timed ones are an hour
    // apart).
    CHECK((*storage)->GetStats().flushes == flushes);
    // The add that crosses it asks; the idle flusher swaps the half out
    // while it still has room, with nothing else added meanwhile. Without
    // the early request this would wait for the hour.
    REQUIRE((*storage)->AddEntry(1, next, MakeEntry(1, next, 1000)).ok());
    ++next;
    REQUIRE(bk::testing::PollUntil(
        [&] { return (*storage)->GetStats().flushes > flushes; }));
  }
  CHECK((*storage)->GetStats().throttled_adds == 0);
  for (int64_t e = 0; e < next; ++e) {
    auto got = (*storage)->GetEntry(1, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, e, 1000));
  }
}

TEST_CASE(
    "add fails with ResourceExhausted after the throttle time while "
    "both write cache halves are busy",
    "[storage]") {
  TempDir dir;
  SyncGate gate;
  FaultInjectionEnv env(Env::Default());
  env.SetSyncGate(&gate, ".log");  // entry logs
  auto options = testing::SmallOptions(dir.path());
  options.write_cache_bytes = 8 << 10;  // halves of 4 KiB
  options.background_flush = true;
  options.flush_interval = absl::Hours(1);
  // Long enough for the flush thread to swap the full half 0 out while the
  // first throttled add waits, even on a loaded machine or under TSan.
  options.max_throttle_time = absl::Seconds(1);
  auto storage = LedgerStorage::Open(&env, options);
  REQUIRE(storage.ok());
  OpenGateOnExit open_on_exit(&gate);  // before the storage stops

  gate.Hold();  // the first flush will hang in its entry-log sync
  int64_t next = 0;
  absl::Status failed;
  absl::Time failed_after;
  // Half 0 fills, a flush takes it and hangs, half 1 fills, then an add
  // waits for the throttle time and fails.
  while (next < 100) {
    const absl::Time start = absl::Now();
    failed = (*storage)->AddEntry(1, next, MakeEntry(1, next, 1000));
    if (!failed.ok()) {
      failed_after = absl::Now() - start + absl::UnixEpoch();
      break;
    }
    ++next;
  }
  REQUIRE(gate.AwaitSyncs(1));
  CHECK(absl::IsResourceExhausted(failed));
  CHECK(failed_after - absl::UnixEpoch() >= options.max_throttle_time);
  CHECK(next >= 4);
  CHECK((*storage)->GetStats().rejected_adds == 1);
  // Everything accepted is readable while the flush hangs.
  for (int64_t e = 0; e < next; ++e) {
    auto got = (*storage)->GetEntry(1, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, e, 1000));
  }

  gate.Open();
  REQUIRE((*storage)->Flush().ok());  // waits for the hung flush, then runs
  REQUIRE((*storage)->AddEntry(1, next, MakeEntry(1, next, 1000)).ok());
  REQUIRE((*storage)->Flush().ok());
  for (int64_t e = 0; e <= next; ++e) {
    auto got = (*storage)->GetEntry(1, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, e, 1000));
  }
}

}  // namespace
}  // namespace bk::bookie
