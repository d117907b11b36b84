// CheckLocationIndex and RebuildLocationIndex: a ledger directory's
// locations checked against its entry logs, and read back from them when
// lost, on a real RocksDB and real logs.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/index_check.h"
#include "bookie/storage/index_rebuild.h"
#include "bookie/storage/ledger_index.h"
#include "bookie/storage/ledger_state.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddRange;
using testing::FlipByte;
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

  REQUIRE(CheckLocationIndex(Env::Default(), dir.path())->clean());
  // The locations are lost: the bookie finds no entry, the check counts
  // every record of a live ledger in the logs as unindexed.
  REQUIRE(OpenIndex(dir.path())->DeleteAllLocations().ok());
  {
    auto lost = CheckLocationIndex(Env::Default(), dir.path());
    REQUIRE(lost.ok());
    CHECK_FALSE(lost->clean());
    CHECK(lost->entries_checked == 0);
    CHECK(lost->entries_unindexed == 455);
    CHECK(lost->logs_read == LogFiles(dir.path()).size());
  }
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
    auto check = CheckLocationIndex(Env::Default(), dir.path());
    REQUIRE(check.ok());
    CHECK(check->clean());
    CHECK(check->entries_checked == 450);
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
  // One byte in the middle of the second log.
  FlipByte(damaged, std::filesystem::file_size(damaged) / 2);
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

TEST_CASE(
    "the check reads every indexed entry and names damaged records, missing "
    "logs and a deleted ledger's locations",
    "[storage][index]") {
  TempDir dir;
  const LedgerStorageOptions o = ManyLogs(dir.path());
  {
    auto storage = OpenOrDie(o);
    AddRange(storage.get(), 1, 0, 300);
    AddRange(storage.get(), 2, 0, 20);
    REQUIRE(storage->Flush().ok());
    REQUIRE(storage->Close().ok());
  }
  const std::vector<std::string> logs = LogFiles(dir.path());
  REQUIRE(logs.size() >= 4);
  {
    auto clean = CheckLocationIndex(Env::Default(), dir.path());
    REQUIRE(clean.ok());
    CHECK(clean->clean());
    CHECK(clean->problems.empty());
    CHECK(clean->entries_checked == 320);
    CHECK(clean->location_records < 20);
  }

  // A flipped byte in the second log, the third log gone, and ledger 2
  // marked deleted behind the storage's back.
  const uint64_t second =
      ReadLocations(dir.path(), {{1, 300}}).at({1, 0}).log_id + 1;
  const auto size = std::filesystem::file_size(logs[1]);
  FlipByte(logs[1], size / 2);
  std::filesystem::rename(logs[2], logs[2] + ".moved");
  {
    LedgerState deleted;
    deleted.deleted = true;
    REQUIRE(OpenIndex(dir.path())
                ->PutLedgerState(2, ledgerstate::Encode(deleted), true)
                .ok());
  }
  auto report = CheckLocationIndex(Env::Default(), dir.path());
  REQUIRE(report.ok());
  CHECK_FALSE(report->clean());
  CHECK(report->entries_checked == 320);
  CHECK(report->records_bad == 0);
  CHECK(report->entries_of_dead_ledgers == 20);
  CHECK(report->logs_incomplete == 2);  // the damaged one, the missing one
  CHECK(report->entries_unindexed == 0);
  // At least the damaged record, and every entry of the missing log.
  CHECK(report->entries_bad > 1);
  CHECK(report->entries_bad < 300);
  bool named_damaged = false, named_missing = false, named_deleted = false;
  for (const std::string& p : report->problems) {
    named_damaged |= absl::StrContains(p, entrylog::LogFileName(second));
    named_missing |= absl::StrContains(p, entrylog::LogFileName(second + 1));
    named_deleted |= absl::StrContains(p, "ledger 2 has locations");
  }
  CHECK(named_damaged);
  CHECK(named_missing);
  CHECK(named_deleted);
  CHECK(report->problems.size() <= IndexCheckReport::kMaxProblems);
}

TEST_CASE("a rebuild refuses a directory without an index, and one in use",
          "[storage][index]") {
  TempDir dir;
  auto none = RebuildLocationIndex(Env::Default(), dir.path());
  CHECK(absl::IsNotFound(none.status()));
  CHECK(absl::IsNotFound(
      CheckLocationIndex(Env::Default(), dir.path()).status()));

  auto storage = OpenOrDie(ManyLogs(dir.path()));
  AddRange(storage.get(), 1, 0, 20);
  REQUIRE(storage->Flush().ok());
  // The open storage holds RocksDB's lock: the rebuild touches nothing.
  auto busy = RebuildLocationIndex(Env::Default(), dir.path());
  CHECK_FALSE(busy.ok());
  CHECK_FALSE(CheckLocationIndex(Env::Default(), dir.path()).ok());
  for (int64_t e = 0; e < 20; ++e) CHECK(storage->GetEntry(1, e).ok());
  REQUIRE(storage->Close().ok());
}

}  // namespace
}  // namespace bk::bookie
