// Power cuts and I/O errors (common/fault_env.h).

#include <errno.h>

#include <catch2/catch.hpp>

#include "common/fault_env.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::SmallOptions;

// Every entry the index lists is readable and intact.
void CheckIndexPointsAtData(LedgerStorage& s, uint64_t ledger) {
  auto ids = s.GetListOfEntriesOfLedger(ledger);
  REQUIRE(ids.ok());
  for (int64_t e : *ids) {
    auto got = s.GetEntry(ledger, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, ledger, e));
  }
}

TEST_CASE(
    "after a power cut, flushed entries are readable and unflushed "
    "ones absent",
    "[storage]") {
  TempDir dir;
  FaultInjectionEnv env(Env::Default());
  {
    auto storage = LedgerStorage::Open(&env, SmallOptions(dir.path()));
    REQUIRE(storage.ok());
    for (int64_t e = 0; e < 100; ++e) {
      REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e)).ok());
    }
    REQUIRE((*storage)->Flush().ok());
    for (int64_t e = 100; e < 150; ++e) {
      REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e)).ok());
    }
    REQUIRE(env.PowerCut().ok());
  }
  env.Restart();
  auto storage = LedgerStorage::Open(&env, SmallOptions(dir.path()));
  REQUIRE(storage.ok());
  for (int64_t e = 0; e < 100; ++e) {
    auto got = (*storage)->GetEntry(1, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, e));
  }
  CHECK(absl::IsNotFound((*storage)->GetEntry(1, 100).status()));
  CHECK(*(*storage)->GetLastEntryId(1) == 99);
  CheckIndexPointsAtData(**storage, 1);
}

TEST_CASE("a write torn by a power cut mid-flush never becomes indexed data",
          "[storage]") {
  for (int keep : {0, 10, 5000}) {
    DYNAMIC_SECTION("torn write keeps " << keep << " bytes") {
      TempDir dir;
      FaultInjectionEnv env(Env::Default());
      {
        auto storage = LedgerStorage::Open(&env, SmallOptions(dir.path()));
        REQUIRE(storage.ok());
        for (int64_t e = 0; e < 50; ++e) {
          REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e)).ok());
        }
        REQUIRE((*storage)->Flush().ok());
        for (int64_t e = 50; e < 100; ++e) {
          REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e)).ok());
        }
        env.TearNthWrite(1, keep, ".log");
        CHECK_FALSE((*storage)->Flush().ok());
        CHECK_FALSE((*storage)->writable().ok());
        REQUIRE(env.PowerCut().ok());
      }
      env.Restart();
      auto storage = LedgerStorage::Open(&env, SmallOptions(dir.path()));
      REQUIRE(storage.ok());
      CHECK(*(*storage)->GetLastEntryId(1) == 49);
      CheckIndexPointsAtData(**storage, 1);
      // The storage takes adds again and flushes them to a new log.
      REQUIRE((*storage)->AddEntry(1, 50, MakeEntry(1, 50)).ok());
      REQUIRE((*storage)->Flush().ok());
      CHECK(IsEntry(*(*storage)->GetEntry(1, 50), 1, 50));
    }
  }
}

TEST_CASE(
    "an entry log write or sync error makes the storage unwritable and "
    "says why",
    "[storage]") {
  for (auto op :
       {FaultInjectionEnv::Op::kWrite, FaultInjectionEnv::Op::kSync}) {
    DYNAMIC_SECTION("failing op " << static_cast<int>(op)) {
      TempDir dir;
      FaultInjectionEnv env(Env::Default());
      auto storage = LedgerStorage::Open(&env, SmallOptions(dir.path()));
      REQUIRE(storage.ok());
      auto& s = **storage;
      REQUIRE(s.AddEntry(1, 0, MakeEntry(1, 0)).ok());
      REQUIRE(s.Flush().ok());
      REQUIRE(s.AddEntry(1, 1, MakeEntry(1, 1)).ok());
      env.FailNth(op, 1, EIO, ".log");
      absl::Status flush = s.Flush();
      CHECK_FALSE(flush.ok());
      absl::Status add = s.AddEntry(1, 2, MakeEntry(1, 2));
      CHECK_FALSE(add.ok());
      CHECK(absl::StrContains(add.message(), "not writable"));
      CHECK_FALSE(s.writable().ok());
      CHECK_FALSE(s.Flush().ok());
      // Nothing is lost from the reader's view: both entries still served.
      CHECK(IsEntry(*s.GetEntry(1, 0), 1, 0));
      CHECK(IsEntry(*s.GetEntry(1, 1), 1, 1));
    }
  }
}

}  // namespace
}  // namespace bk::bookie
