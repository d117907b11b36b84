// What a flush writes to the index: one record per run of a ledger's
// entries, a read of the index only when new locations may overlap old
// ones, and every entry readable afterwards, across a reopen too.

#include <catch2/catch.hpp>

#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddRange;
using testing::IsEntry;
using testing::MakeEntry;
using testing::OpenOrDie;
using testing::SmallOptions;

// Every entry of [0, to) reads back from the entry logs, none past it.
void CheckReadable(LedgerStorage* storage, uint64_t ledger, int64_t to) {
  for (int64_t e = 0; e < to; ++e) {
    auto got = storage->GetEntry(ledger, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, ledger, e));
  }
  CHECK(absl::IsNotFound(storage->GetEntry(ledger, to).status()));
  CHECK(*storage->GetLastEntryId(ledger) == to - 1);
}

TEST_CASE(
    "a flush indexes each ledger's entries as runs, reading the index "
    "only for entries written again",
    "[storage][index]") {
  TempDir dir;
  LedgerStorageOptions o = SmallOptions(dir.path());
  o.read_ahead_batch_size = 1;  // every read looks its entry up
  {
    auto storage = OpenOrDie(o);
    AddRange(storage.get(), 1, 0, 300);
    AddRange(storage.get(), 2, 0, 10);
    REQUIRE(storage->Flush().ok());
    StorageStats s = storage->GetStats();
    CHECK(s.flushed_entries == 310);
    CHECK(s.index_location_records == 3);  // 256 + 44, and 10
    CHECK(s.index_overlap_reads == 0);

    // Appending past what the index holds: no read.
    AddRange(storage.get(), 1, 300, 320);
    REQUIRE(storage->Flush().ok());
    s = storage->GetStats();
    CHECK(s.index_location_records == 4);
    CHECK(s.index_overlap_reads == 0);

    // Entries 100-104 written again (a recovery's re-add) with new ones.
    AddRange(storage.get(), 1, 100, 105);
    AddRange(storage.get(), 1, 320, 330);
    REQUIRE(storage->Flush().ok());
    s = storage->GetStats();
    CHECK(s.index_overlap_reads == 1);
    CheckReadable(storage.get(), 1, 330);
    CheckReadable(storage.get(), 2, 10);
  }
  // Reopened, the index is read once per ledger to learn where it ends;
  // appends after that read nothing more.
  auto storage = OpenOrDie(o);
  CheckReadable(storage.get(), 1, 330);
  AddRange(storage.get(), 1, 330, 340);
  REQUIRE(storage->Flush().ok());
  CHECK(storage->GetStats().index_overlap_reads == 0);
  AddRange(storage.get(), 1, 0, 1);
  REQUIRE(storage->Flush().ok());
  CHECK(storage->GetStats().index_overlap_reads == 1);
  CheckReadable(storage.get(), 1, 340);
}

}  // namespace
}  // namespace bk::bookie
