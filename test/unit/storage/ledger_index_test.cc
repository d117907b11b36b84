// LedgerIndex's location records on a real RocksDB: runs, rewriting
// entries that already had a location, and the reads over them.

#include "bookie/storage/ledger_index.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test/support/temp_dir.h"
#include "test/support/test_seed.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;

std::unique_ptr<LedgerIndex> OpenIndex(const std::string& path) {
  auto index = LedgerIndex::Open(path);
  REQUIRE(index.ok());
  return std::move(*index);
}

std::vector<LocatedEntry> Contiguous(uint64_t first, size_t n, uint64_t log,
                                     uint64_t offset, uint64_t size = 1040) {
  std::vector<LocatedEntry> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back({first + i, {log, offset + i * size}});
  }
  return v;
}

void Put(LedgerIndex* index, uint64_t ledger,
         const std::vector<LocatedEntry>& entries) {
  auto batch = index->NewBatch();
  REQUIRE(index->PutLocations(batch.get(), ledger, entries).ok());
  REQUIRE(index->Commit(batch.get(), /*sync=*/false).ok());
}

// What the index says about every entry id in [0, limit).
std::map<int64_t, EntryLocation> ReadAll(const LedgerIndex& index,
                                         uint64_t ledger, int64_t limit) {
  std::map<int64_t, EntryLocation> got;
  for (int64_t e = 0; e < limit; ++e) {
    auto loc = index.GetLocation(ledger, e);
    if (loc.ok()) {
      got[e] = *loc;
    } else {
      REQUIRE(absl::IsNotFound(loc.status()));
    }
  }
  return got;
}

std::vector<int64_t> List(const LedgerIndex& index, uint64_t ledger,
                          int64_t from, size_t max) {
  std::vector<int64_t> ids;
  REQUIRE(index.ListEntries(ledger, from, max, &ids).ok());
  return ids;
}

uint64_t Records(const LedgerIndex& index, uint64_t ledger) {
  auto n = index.CountLocationRecords(ledger);
  REQUIRE(n.ok());
  return *n;
}

TEST_CASE("a flush's run of entries is one index record per 256 entries",
          "[storage][index]") {
  TempDir dir;
  auto index = OpenIndex(dir.path());
  const auto run = Contiguous(0, 1000, 4, 0);
  Put(index.get(), 7, run);
  CHECK(Records(*index, 7) == 4);
  auto got = ReadAll(*index, 7, 1100);
  REQUIRE(got.size() == 1000);
  for (const LocatedEntry& e : run) {
    CHECK(got[static_cast<int64_t>(e.entry)] == e.loc);
  }
  CHECK(*index->GetLastEntryId(7) == 999);
  CHECK(List(*index, 7, 0, 5) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(List(*index, 7, 254, 4) == std::vector<int64_t>{254, 255, 256, 257});
  CHECK(List(*index, 7, 998, 10) == std::vector<int64_t>{998, 999});
  CHECK(List(*index, 7, 1000, 10).empty());
  // The neighbouring ledgers see nothing of it.
  CHECK(absl::IsNotFound(index->GetLocation(6, 0).status()));
  CHECK(absl::IsNotFound(index->GetLocation(8, 0).status()));
  CHECK(*index->GetLastEntryId(6) == -1);
  CHECK(*index->GetLastEntryId(8) == -1);
  CHECK(List(*index, 8, 0, 10).empty());
}

TEST_CASE("entries written again move and the rest of their run stays",
          "[storage][index]") {
  TempDir dir;
  auto index = OpenIndex(dir.path());
  const auto first = Contiguous(0, 100, 1, 0);
  Put(index.get(), 3, first);
  REQUIRE(Records(*index, 3) == 1);

  SECTION("the middle of a run") {
    Put(index.get(), 3, Contiguous(40, 20, 2, 0));
    CHECK(Records(*index, 3) == 3);
    auto got = ReadAll(*index, 3, 100);
    REQUIRE(got.size() == 100);
    for (int64_t e = 0; e < 100; ++e) {
      const bool moved = e >= 40 && e < 60;
      CHECK(got[e].log_id == (moved ? 2u : 1u));
    }
    CHECK(got[60] == first[60].loc);
    CHECK(*index->GetLastEntryId(3) == 99);
    CHECK(List(*index, 3, 0, 1000).size() == 100);
  }
  SECTION("the run's first entry alone") {
    Put(index.get(), 3, {{0, {2, 0}}});
    CHECK(Records(*index, 3) == 2);
    auto got = ReadAll(*index, 3, 100);
    REQUIRE(got.size() == 100);
    CHECK(got[0] == EntryLocation{2, 0});
    CHECK(got[1] == first[1].loc);
    CHECK(*index->GetLastEntryId(3) == 99);
  }
  SECTION("across the run's end and past it") {
    Put(index.get(), 3, Contiguous(90, 61, 2, 0));
    auto got = ReadAll(*index, 3, 200);
    REQUIRE(got.size() == 151);
    CHECK(got[89] == first[89].loc);
    CHECK(got[90] == EntryLocation{2, 0});
    CHECK(*index->GetLastEntryId(3) == 150);
  }
  SECTION("a run that covers several runs") {
    Put(index.get(), 3, Contiguous(200, 10, 1, 200000));
    Put(index.get(), 3, Contiguous(0, 300, 5, 0));
    CHECK(Records(*index, 3) == 2);  // 256 + 44
    auto got = ReadAll(*index, 3, 400);
    REQUIRE(got.size() == 300);
    for (const auto& [e, loc] : got) CHECK(loc.log_id == 5);
  }
}

TEST_CASE("entries that are not a run get a record each, as before runs",
          "[storage][index]") {
  TempDir dir;
  auto index = OpenIndex(dir.path());
  // Sparse ids, and two that share an offset (no run may hold them).
  Put(index.get(), 9,
      {{5, {1, 0}}, {7, {1, 100}}, {8, {1, 100}}, {20, {2, 0}}});
  CHECK(Records(*index, 9) == 4);
  auto got = ReadAll(*index, 9, 30);
  CHECK(got.size() == 4);
  CHECK(absl::IsNotFound(index->GetLocation(9, 6).status()));
  CHECK(got[8] == EntryLocation{1, 100});
  CHECK(*index->GetLastEntryId(9) == 20);
  CHECK(List(*index, 9, 6, 10) == std::vector<int64_t>{7, 8, 20});
}

TEST_CASE("runs survive a reopen and a ledger's deletion removes them all",
          "[storage][index]") {
  TempDir dir;
  {
    auto index = OpenIndex(dir.path());
    Put(index.get(), 1, Contiguous(0, 600, 1, 0));
    Put(index.get(), 2, Contiguous(0, 10, 1, 900000));
  }
  auto index = OpenIndex(dir.path());
  CHECK(ReadAll(*index, 1, 700).size() == 600);
  CHECK(*index->GetLocation(1, 599) == EntryLocation{1, 599 * 1040});
  REQUIRE(index->DeleteLocations(1).ok());
  CHECK(ReadAll(*index, 1, 700).empty());
  CHECK(*index->GetLastEntryId(1) == -1);
  CHECK(Records(*index, 1) == 0);
  CHECK(ReadAll(*index, 2, 20).size() == 10);
  // A deleted ledger's id written again starts afresh.
  Put(index.get(), 1, Contiguous(3, 2, 7, 0));
  CHECK(ReadAll(*index, 1, 700).size() == 2);
}

TEST_CASE("a lookup sees the index as it was when made", "[storage][index]") {
  TempDir dir;
  auto index = OpenIndex(dir.path());
  Put(index.get(), 1, Contiguous(0, 10, 1, 0));
  Put(index.get(), 2, Contiguous(5, 10, 1, 50000));
  auto lookup = index->NewLookup();
  Put(index.get(), 1, Contiguous(3, 2, 9, 0));  // after the lookup was made
  CHECK(*lookup->Get(1, 3) == EntryLocation{1, 3 * 1040});
  CHECK(*lookup->Get(1, 9) == EntryLocation{1, 9 * 1040});
  CHECK(absl::IsNotFound(lookup->Get(1, 10).status()));
  CHECK(absl::IsNotFound(lookup->Get(2, 4).status()));
  CHECK(*lookup->Get(2, 5) == EntryLocation{1, 50000});
  CHECK(absl::IsNotFound(lookup->Get(3, 0).status()));
  CHECK(*index->NewLookup()->Get(1, 3) == EntryLocation{9, 0});
  CHECK(*index->GetLocation(1, 3) == EntryLocation{9, 0});
}

// Random rewrites against a map: whatever was written last for an entry is
// what the index gives back, and the reads agree with each other.
TEST_CASE("random rewrites read back as the last location written",
          "[storage][index]") {
  const uint64_t seed = bk::testing::TestSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto index = OpenIndex(dir.path());
  constexpr int64_t kIds = 700;
  std::map<uint64_t, std::map<int64_t, EntryLocation>> model;
  uint64_t log = 1;
  for (int round = 0; round < 60; ++round) {
    auto batch = index->NewBatch();
    // A few ledgers per batch, one call each.
    for (uint64_t ledger = 1; ledger <= 3; ++ledger) {
      if (rng() % 3 == 0) continue;
      const int64_t from = static_cast<int64_t>(rng() % kIds);
      const int64_t n =
          1 + static_cast<int64_t>(rng() % std::min<int64_t>(400, kIds - from));
      std::vector<LocatedEntry> entries;
      uint64_t offset = rng() % 1000;
      for (int64_t e = from; e < from + n; ++e) {
        if (rng() % 10 == 0) continue;                      // a gap
        if (rng() % 50 == 0) ++log;                         // the log rolled
        offset += (rng() % 8 == 0) ? 0 : 1 + rng() % 3000;  // may not grow
        entries.push_back({static_cast<uint64_t>(e), {log, offset}});
        model[ledger][e] = {log, offset};
      }
      REQUIRE(index->PutLocations(batch.get(), ledger, entries).ok());
    }
    REQUIRE(index->Commit(batch.get(), false).ok());
    ++log;
  }
  for (uint64_t ledger = 1; ledger <= 3; ++ledger) {
    INFO("ledger " << ledger);
    const auto& want = model[ledger];
    CHECK(ReadAll(*index, ledger, kIds + 10) == want);
    std::vector<int64_t> ids;
    for (const auto& [e, loc] : want) ids.push_back(e);
    CHECK(List(*index, ledger, 0, kIds + 10) == ids);
    CHECK(*index->GetLastEntryId(ledger) == (ids.empty() ? -1 : ids.back()));
    if (ids.size() > 5) {
      const int64_t mid = ids[ids.size() / 2] - 1;  // maybe not an entry
      std::vector<int64_t> tail;
      for (int64_t e : ids) {
        if (e >= mid && tail.size() < 5) tail.push_back(e);
      }
      CHECK(List(*index, ledger, mid, 5) == tail);
    }
    // One lookup walking the ids in order agrees, as does one walking back.
    auto lookup = index->NewLookup();
    std::map<int64_t, EntryLocation> walked;
    for (int64_t e = 0; e < kIds + 10; ++e) {
      auto loc = lookup->Get(ledger, e);
      if (loc.ok()) walked[e] = *loc;
    }
    CHECK(walked == want);
    walked.clear();
    for (int64_t e = kIds + 10; e >= 0; --e) {
      auto loc = lookup->Get(ledger, e);
      if (loc.ok()) walked[e] = *loc;
    }
    CHECK(walked == want);
    // Written whole again as one run, the pieces collapse to 3 records.
    Put(index.get(), ledger, Contiguous(0, kIds, 1000 + ledger, 0));
    CHECK(Records(*index, ledger) == 3);
    auto got = ReadAll(*index, ledger, kIds + 10);
    CHECK(got.size() == static_cast<size_t>(kIds));
    CHECK(got[kIds - 1] == EntryLocation{1000 + ledger, (kIds - 1) * 1040});
  }
}

}  // namespace
}  // namespace bk::bookie
