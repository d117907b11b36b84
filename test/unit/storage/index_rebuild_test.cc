// RebuildLocationIndex: a ledger directory's lost locations read back from
// its entry logs, on a real RocksDB and real logs.

#include "bookie/storage/index_rebuild.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/ledger_index.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::OpenOrDie;
using testing::SmallOptions;

using Locations = std::map<std::pair<uint64_t, int64_t>, EntryLocation>;

LedgerStorageOptions ManyLogs(const std::string& dir) {
  LedgerStorageOptions o = SmallOptions(dir);
  o.entry_log_size_limit = 16 << 10;  // about 100 records of 100 bytes
  o.read_ahead_batch_size = 1;
  return o;
}

void AddRange(LedgerStorage* storage, uint64_t ledger, int64_t from,
              int64_t to) {
  for (int64_t e = from; e < to; ++e) {
    REQUIRE(storage->AddEntry(ledger, e, MakeEntry(ledger, e)).ok());
  }
}

std::unique_ptr<LedgerIndex> OpenIndex(const std::string& dir) {
  auto index = LedgerIndex::Open(dir + "/index");
  REQUIRE(index.ok());
  return std::move(*index);
}

// The location of each of the ledgers' entries [0, counts[i]), and that no
// entry beyond holds one.
Locations ReadLocations(const std::string& dir,
                        const std::map<uint64_t, int64_t>& counts) {
  auto index = OpenIndex(dir);
  Locations out;
  for (const auto& [ledger, n] : counts) {
    for (int64_t e = 0; e < n; ++e) {
      auto loc = index->GetLocation(ledger, e);
      if (loc.ok()) out[{ledger, e}] = *loc;
    }
    CHECK(absl::IsNotFound(index->GetLocation(ledger, n).status()));
  }
  return out;
}

std::vector<std::string> LogFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() == ".log") out.push_back(f.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE(
    "a rebuilt index holds the locations the lost one held, and none of a "
    "deleted ledger",
    "[storage][index]") {
  TempDir dir;
  const LedgerStorageOptions o = ManyLogs(dir.path());
  {
    auto storage = OpenOrDie(o);
    AddRange(storage.get(), 1, 0, 400);
    REQUIRE(storage->Flush().ok());
    AddRange(storage.get(), 2, 0, 50);
    AddRange(storage.get(), 3, 0, 30);
    REQUIRE(storage->Flush().ok());
    // A recovery's re-add: the same entries again, in a later log.
    AddRange(storage.get(), 1, 100, 105);
    REQUIRE(storage->Flush().ok());
    REQUIRE(storage->DeleteLedger(3).ok());
    REQUIRE(storage->Close().ok());
  }
  REQUIRE(LogFiles(dir.path()).size() >= 4);
  const std::map<uint64_t, int64_t> counts = {{1, 400}, {2, 50}, {3, 30}};
  const Locations before = ReadLocations(dir.path(), counts);
  REQUIRE(before.size() == 450);
  // The re-added entries point into the last log written.
  const uint64_t last_log = before.at({1, 104}).log_id;
  CHECK(before.at({1, 100}).log_id == last_log);
  CHECK(before.at({1, 99}).log_id < last_log);

  // The locations are lost: the bookie finds no entry.
  REQUIRE(OpenIndex(dir.path())->DeleteAllLocations().ok());
  {
    auto storage = OpenOrDie(o);
    CHECK(absl::IsNotFound(storage->GetEntry(1, 0).status()));
    REQUIRE(storage->Close().ok());
  }

  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);  // a second rebuild over a whole index
    auto report = RebuildLocationIndex(Env::Default(), dir.path());
    REQUIRE(report.ok());
    CHECK(report->problems.empty());
    CHECK(report->live_ledgers == 2);
    CHECK(report->records_read == 485);
    CHECK(report->records_skipped == 30);  // ledger 3's
    CHECK(report->entries_indexed == 455);
    CHECK(report->logs_read == LogFiles(dir.path()).size());
    // Runs: a handful of records per log, far fewer than entries.
    CHECK(report->location_records < 40);
    CHECK(ReadLocations(dir.path(), counts) == before);
  }

  // Rolled back to one record per entry (bookies from before runs).
  {
    IndexRebuildOptions one;
    one.max_run_entries = 1;
    auto report = RebuildLocationIndex(Env::Default(), dir.path(), one);
    REQUIRE(report.ok());
    CHECK(report->problems.empty());
    // Ledger 1's re-added entries are written twice: once per log.
    CHECK(report->location_records == report->entries_indexed);
    CHECK(ReadLocations(dir.path(), counts) == before);
    auto index = OpenIndex(dir.path());
    CHECK(*index->CountLocationRecords(1) == 400);
    CHECK(*index->CountLocationRecords(2) == 50);
    CHECK(*index->CountLocationRecords(3) == 0);
  }
  {
    IndexRebuildOptions bad;
    bad.max_run_entries = 0;
    CHECK(absl::IsInvalidArgument(
        RebuildLocationIndex(Env::Default(), dir.path(), bad).status()));
  }

  auto storage = OpenOrDie(o);
  for (int64_t e = 0; e < 400; ++e) {
    auto got = storage->GetEntry(1, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, e));
  }
  for (int64_t e = 0; e < 50; ++e) CHECK(storage->GetEntry(2, e).ok());
  CHECK(*storage->GetLastEntryId(1) == 399);
  CHECK_FALSE(storage->GetEntry(3, 0).ok());
  REQUIRE(storage->Close().ok());
}

TEST_CASE(
    "a damaged record ends the rebuild of its own log only, and the report "
    "names the log",
    "[storage][index]") {
  TempDir dir;
  const LedgerStorageOptions o = ManyLogs(dir.path());
  {
    auto storage = OpenOrDie(o);
    AddRange(storage.get(), 7, 0, 300);
    REQUIRE(storage->Flush().ok());
    REQUIRE(storage->Close().ok());
  }
  const std::map<uint64_t, int64_t> counts = {{7, 300}};
  const Locations before = ReadLocations(dir.path(), counts);
  const std::vector<std::string> logs = LogFiles(dir.path());
  REQUIRE(logs.size() >= 3);
  const std::string damaged = logs[1];
  const uint64_t damaged_id = before.at({7, 0}).log_id + 1;
  REQUIRE(absl::EndsWith(damaged, entrylog::LogFileName(damaged_id)));
  {
    // One byte in the middle of the second log.
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    const auto size = std::filesystem::file_size(damaged);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(&c, 1);
  }
  REQUIRE(OpenIndex(dir.path())->DeleteAllLocations().ok());

  auto report = RebuildLocationIndex(Env::Default(), dir.path());
  REQUIRE(report.ok());
  REQUIRE(report->problems.size() == 1);
  CHECK(absl::StrContains(report->problems[0],
                          entrylog::LogFileName(damaged_id)));
  CHECK(report->entries_indexed < 300);
  CHECK(report->entries_indexed > 0);

  // Every entry outside the damaged log is back where it was; in it, the
  // ones before the damage.
  const Locations after = ReadLocations(dir.path(), counts);
  int lost = 0;
  for (const auto& [key, loc] : before) {
    auto it = after.find(key);
    if (loc.log_id != damaged_id) {
      REQUIRE(it != after.end());
      CHECK(it->second == loc);
    } else if (it == after.end()) {
      ++lost;
    } else {
      CHECK(it->second == loc);
      CHECK(lost == 0);  // lost ones come after every kept one
    }
  }
  CHECK(lost > 0);
  CHECK(static_cast<size_t>(lost) + report->entries_indexed == 300);
}

TEST_CASE("a rebuild refuses a directory without an index, and one in use",
          "[storage][index]") {
  TempDir dir;
  auto none = RebuildLocationIndex(Env::Default(), dir.path());
  CHECK(absl::IsNotFound(none.status()));

  auto storage = OpenOrDie(ManyLogs(dir.path()));
  AddRange(storage.get(), 1, 0, 20);
  REQUIRE(storage->Flush().ok());
  // The open storage holds RocksDB's lock: the rebuild touches nothing.
  auto busy = RebuildLocationIndex(Env::Default(), dir.path());
  CHECK_FALSE(busy.ok());
  for (int64_t e = 0; e < 20; ++e) CHECK(storage->GetEntry(1, e).ok());
  REQUIRE(storage->Close().ok());
}

}  // namespace
}  // namespace bk::bookie
