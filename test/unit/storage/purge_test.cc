// Purging the tombstones of deleted ledgers: only after a flush that began
// after the deletion completed, the journal checkpoint passed it and the
// retention expired; what late adds get before and after.

#include <catch2/catch.hpp>
#include <thread>

#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "test/support/clock_env.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ClockEnv;
using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::SmallOptions;

constexpr absl::Duration kRetention = absl::Hours(1);

LedgerStorageOptions PurgeOptions(const std::string& dir) {
  LedgerStorageOptions o = SmallOptions(dir);
  o.deleted_ledger_retention = kRetention;
  return o;
}

std::unique_ptr<LedgerStorage> OpenOrDie(Env* env,
                                         const LedgerStorageOptions& o) {
  auto s = LedgerStorage::Open(env, o);
  REQUIRE(s.ok());
  return std::move(*s);
}

// Journal hooks whose checkpoint the test makes succeed or fail.
struct FakeJournal {
  uint64_t next_mark = 1;
  bool checkpoint_ok = true;
  std::vector<uint64_t> checkpoints;

  CheckpointHooks Hooks() {
    return {[this] { return next_mark++; },
            [this](uint64_t mark) -> absl::Status {
              if (!checkpoint_ok) return absl::UnavailableError("disk gone");
              checkpoints.push_back(mark);
              return absl::OkStatus();
            }};
  }
};

uint64_t Purge(LedgerStorage* s) {
  auto r = s->RunGc(nullptr, 0.0);
  REQUIRE(r.ok());
  return r->purged_ledgers;
}

void AddLedger(LedgerStorage* s, uint64_t ledger, int64_t entries) {
  for (int64_t e = 0; e < entries; ++e) {
    REQUIRE(s->AddEntry(ledger, e, MakeEntry(ledger, e)).ok());
  }
}

TEST_CASE(
    "a tombstone is purged only after a later flush, its checkpoint and "
    "the retention",
    "[storage][purge]") {
  TempDir dir;
  ClockEnv env(Env::Default());
  auto s = OpenOrDie(&env, PurgeOptions(dir.path()));
  FakeJournal journal;
  s->SetCheckpointHooks(journal.Hooks());
  AddLedger(s.get(), 1, 10);
  AddLedger(s.get(), 2, 10);
  REQUIRE(s->Flush().ok());  // before the deletion: does not count
  REQUIRE(s->DeleteLedger(1).ok());
  CHECK(s->GetStats().ledger_tombstones == 1);

  SECTION("the retention alone is not enough") {
    env.Advance(2 * kRetention);
    CHECK(Purge(s.get()) == 0);
    CHECK(absl::IsNotFound(s->AddEntry(1, 10, MakeEntry(1, 10))));
  }
  SECTION("a later flush whose checkpoint failed is not enough") {
    journal.checkpoint_ok = false;
    REQUIRE(s->Flush().ok());
    env.Advance(2 * kRetention);
    CHECK(Purge(s.get()) == 0);
    // The next flush moves the checkpoint: now it may go.
    journal.checkpoint_ok = true;
    REQUIRE(s->Flush().ok());
    CHECK(Purge(s.get()) == 1);
  }
  SECTION("a flush without a journal mark (replay) is not enough") {
    s->SetCheckpointHooks({[] { return uint64_t{0}; },
                           [](uint64_t) { return absl::OkStatus(); }});
    REQUIRE(s->Flush().ok());
    env.Advance(2 * kRetention);
    CHECK(Purge(s.get()) == 0);
  }
  SECTION("a later checkpointed flush is not enough within the retention") {
    REQUIRE(s->Flush().ok());
    CHECK(Purge(s.get()) == 0);
    env.Advance(kRetention - absl::Minutes(1));
    CHECK(Purge(s.get()) == 0);
    CHECK(absl::IsNotFound(s->AddEntry(1, 10, MakeEntry(1, 10))));
    env.Advance(absl::Minutes(2));
    CHECK(Purge(s.get()) == 1);
    CHECK(Purge(s.get()) == 0);  // once
    const StorageStats st = s->GetStats();
    CHECK(st.purged_ledgers == 1);
    CHECK(st.ledger_tombstones == 0);
    CHECK(st.deleted_ledgers == 1);
  }
  // Ledger 2 is untouched whatever happened to ledger 1.
  for (int64_t e = 0; e < 10; ++e) {
    CHECK(IsEntry(*s->GetEntry(2, e), 2, e));
  }
}

TEST_CASE("a purged tombstone is gone from the index too", "[storage][purge]") {
  TempDir dir;
  ClockEnv env(Env::Default());
  {
    auto s = OpenOrDie(&env, PurgeOptions(dir.path()));
    AddLedger(s.get(), 1, 5);
    AddLedger(s.get(), 3, 5);
    REQUIRE(s->Flush().ok());
    REQUIRE(s->DeleteLedger(1).ok());
    REQUIRE(s->DeleteLedger(3).ok());
    REQUIRE(s->Flush().ok());  // no hooks: no journal to wait for
    env.Advance(2 * kRetention);
    REQUIRE(s->DeleteLedger(3).ok());  // already deleted: no second tombstone
    CHECK(Purge(s.get()) == 2);
    // A tombstone that is not purged survives the restart.
    AddLedger(s.get(), 4, 5);
    REQUIRE(s->DeleteLedger(4).ok());
    REQUIRE(s->Close().ok());
  }
  auto s = OpenOrDie(&env, PurgeOptions(dir.path()));
  CHECK(s->GetStats().ledger_tombstones == 1);
  CHECK(absl::IsNotFound(s->AddEntry(4, 9, MakeEntry(4, 9))));
  // Purged ids are unknown: no row, no entries.
  CHECK_FALSE(s->LedgerExists(1));
  CHECK(absl::IsNotFound(s->GetEntry(1, 0).status()));
  CHECK(s->GetListOfEntriesOfLedger(1)->empty());
  // After a restart the retention starts again, and the restart's own
  // checkpointed flush is needed.
  env.Advance(2 * kRetention);
  CHECK(Purge(s.get()) == 0);
  REQUIRE(s->Flush().ok());
  CHECK(Purge(s.get()) == 1);
}

TEST_CASE(
    "a late add is refused during the retention and after the purge makes "
    "a new ledger that GC deletes again",
    "[storage][purge]") {
  TempDir dir;
  ClockEnv env(Env::Default());
  auto s = OpenOrDie(&env, PurgeOptions(dir.path()));
  AddLedger(s.get(), 7, 10);
  REQUIRE(s->Flush().ok());
  REQUIRE(s->DeleteLedger(7).ok());
  REQUIRE(s->Flush().ok());

  // During the retention: NotFound, and nothing of it is readable.
  env.Advance(kRetention / 2);
  CHECK(Purge(s.get()) == 0);
  CHECK(absl::IsNotFound(s->AddEntry(7, 10, MakeEntry(7, 10))));
  CHECK(absl::IsNotFound(s->FindOrCreateLedger(7).status()));
  CHECK(absl::IsNotFound(s->GetEntry(7, 0).status()));
  CHECK(absl::IsNotFound(s->GetEntry(7, LedgerStorage::kLastEntry).status()));
  CHECK_FALSE(s->LedgerExists(7));

  env.Advance(kRetention);
  REQUIRE(Purge(s.get()) == 1);
  // After the purge the id is unknown: a late add starts a new ledger (as
  // in BookKeeper), which holds only what was added after the purge.
  REQUIRE(s->AddEntry(7, 10, MakeEntry(7, 10)).ok());
  CHECK(s->LedgerExists(7));
  CHECK(IsEntry(*s->GetEntry(7, 10), 7, 10));
  for (int64_t e = 0; e < 10; ++e) {
    CHECK(absl::IsNotFound(s->GetEntry(7, e).status()));
  }
  CHECK(*s->GetListOfEntriesOfLedger(7) == std::vector<int64_t>{10});
  // The GC pass asks the metadata store, which says 7 is deleted: it is
  // deleted again, and late adds are refused again.
  auto r = s->RunGc([](uint64_t id) { return id == 7; }, 0.0);
  REQUIRE(r.ok());
  CHECK(r->deleted_ledgers == 1);
  CHECK_FALSE(s->LedgerExists(7));
  CHECK(absl::IsNotFound(s->AddEntry(7, 11, MakeEntry(7, 11))));
  CHECK(absl::IsNotFound(s->GetEntry(7, 10).status()));
}

TEST_CASE(
    "entries cached when their ledger is deleted during a flush are never "
    "indexed, before or after the purge",
    "[storage][purge]") {
  TempDir dir;
  SyncGate gate;
  FaultInjectionEnv gated(Env::Default());
  gated.SetSyncGate(&gate, ".log");  // entry logs
  ClockEnv env(&gated);
  auto options = PurgeOptions(dir.path());
  {
    auto s = OpenOrDie(&env, options);
    AddLedger(s.get(), 1, 10);  // goes into the flush below
    AddLedger(s.get(), 2, 10);
    gate.Hold();
    std::thread flusher([&] { CHECK(s->Flush().ok()); });
    CHECK(gate.AwaitSyncs(1));  // the flush swapped, hangs in its log sync
    // Into the active half while the flush runs.
    for (int64_t e = 10; e < 20; ++e) {
      REQUIRE(s->AddEntry(1, e, MakeEntry(1, e)).ok());
    }
    std::thread deleter([&] { CHECK(s->DeleteLedger(1).ok()); });
    gate.Open();
    flusher.join();
    deleter.join();
    const uint64_t flushed_before = s->GetStats().flushed_entries;
    // The flush that was running when the ledger was deleted is not enough.
    env.Advance(2 * kRetention);
    CHECK(Purge(s.get()) == 0);
    // The next flush takes the active half and skips ledger 1's entries.
    REQUIRE(s->Flush().ok());
    CHECK(s->GetStats().flushed_entries == flushed_before);
    CHECK(s->GetStats().write_cache_entries == 0);
    for (int64_t e = 0; e < 20; ++e) {
      CHECK(absl::IsNotFound(s->GetEntry(1, e).status()));
    }
    env.Advance(2 * kRetention);
    CHECK(Purge(s.get()) == 1);
    for (int64_t e = 0; e < 20; ++e) {
      CHECK(absl::IsNotFound(s->GetEntry(1, e).status()));
    }
    CHECK(s->GetListOfEntriesOfLedger(1)->empty());
    CHECK(*s->GetLastEntryId(1) == -1);
    REQUIRE(s->Close().ok());
  }
  auto s = OpenOrDie(&env, options);
  CHECK(s->GetListOfEntriesOfLedger(1)->empty());
  for (int64_t e = 0; e < 20; ++e) {
    CHECK(absl::IsNotFound(s->GetEntry(1, e).status()));
  }
  for (int64_t e = 0; e < 10; ++e) {
    CHECK(IsEntry(*s->GetEntry(2, e), 2, e));
  }
  // Ledger 1's bytes are dead: its logs go once nothing else lives there.
  REQUIRE(s->DeleteLedger(2).ok());
  auto r = s->RunGc(nullptr, 0.0);
  REQUIRE(r.ok());
  CHECK(r->removed_logs >= 1);
}

}  // namespace
}  // namespace bk::bookie
