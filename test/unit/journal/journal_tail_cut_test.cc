// journalCutNewestTailAt: after a power loss a later page of the last,
// never-acknowledged group may reach the disk before an earlier one, so a
// valid record follows invalid bytes in the newest journal file and replay
// refuses start. The refusal names a per-start override that cuts exactly
// that file at exactly that offset; it changes nothing anywhere else.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bookie/journal/journal.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_replay.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::EntryRecord;
using testing::FileHeader;
using testing::SaltOf;

// Journal file `id` in `dir`: entries first..first+3 of ledger 1, the third
// (first + 2) damaged. Returns the offset of the damaged record.
uint64_t WriteTornGroupThenIntact(const std::string& dir, uint64_t id,
                                  int64_t first) {
  REQUIRE(Env::Default()->CreateDirRecursive(dir).ok());
  std::string data = FileHeader(id);
  uint64_t damaged_at = 0;
  for (int64_t e = first; e < first + 4; ++e) {
    std::string record =
        EntryRecord(1, e, "payload-" + std::to_string(e), SaltOf(id));
    if (e == first + 2) {
      damaged_at = data.size();
      record.back() ^= 0x5a;  // the page that never reached the disk
    }
    data += record;
  }
  testing::WriteRaw(JournalFilePath(dir, id), data);
  return damaged_at;
}

std::string Override(const std::string& dir, uint64_t id, uint64_t offset) {
  return JournalFilePath(dir, id) + ":" + std::to_string(offset);
}

absl::StatusOr<JournalReplayReport> Replay(const JournalOptions& o,
                                           std::vector<int64_t>* entries) {
  Journal j(Env::Default(), o);
  return j.Replay([entries](const JournalRecordView& r) {
    entries->push_back(r.entry_id);
    return absl::OkStatus();
  });
}

TEST_CASE(
    "a torn group followed by an intact one in the newest file refuses "
    "start, naming the override that cuts it there",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  const uint64_t at = WriteTornGroupThenIntact(o.dirs[0], 1, 0);
  std::vector<int64_t> entries;
  auto r = Replay(o, &entries);
  REQUIRE(absl::IsDataLoss(r.status()));
  const std::string msg(r.status().message());
  INFO(msg);
  CHECK(msg.find("--journalCutNewestTailAt=" + Override(o.dirs[0], 1, at)) !=
        std::string::npos);
  CHECK(msg.find("power") != std::string::npos);
  CHECK(msg.find("journalSkipCorruptRecords") != std::string::npos);
}

TEST_CASE(
    "with the override, the newest file is cut at that offset and replay "
    "goes on",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  const uint64_t at = WriteTornGroupThenIntact(o.dirs[0], 1, 0);
  const std::string path = JournalFilePath(o.dirs[0], 1);
  const uint64_t size = testing::ReadRaw(path).size();
  o.cut_newest_tail_at = Override(o.dirs[0], 1, at);
  std::vector<int64_t> entries;
  auto r = Replay(o, &entries);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(entries == std::vector<int64_t>{0, 1});
  CHECK(r->torn_bytes_cut == size - at);
  CHECK(r->skipped_ranges == 0);
  CHECK(testing::ReadRaw(path).size() == at);  // cut, and synced

  SECTION("left in place, it is harmless at the next start") {
    std::vector<int64_t> again;
    Journal j(Env::Default(), o);
    REQUIRE(j.Replay([&](const JournalRecordView& rec) {
               again.push_back(rec.entry_id);
               return absl::OkStatus();
             }).ok());
    CHECK(again == std::vector<int64_t>{0, 1});
    REQUIRE(j.Start().ok());  // writes a new file: the override is stale
  }
}

TEST_CASE("the override cuts nothing but the file and offset it names",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  std::vector<int64_t> entries;

  SECTION("another offset of the newest file") {
    const uint64_t at = WriteTornGroupThenIntact(o.dirs[0], 1, 0);
    for (uint64_t off : {at - 1, at + 1}) {
      o.cut_newest_tail_at = Override(o.dirs[0], 1, off);
      CHECK(absl::IsDataLoss(Replay(o, &entries).status()));
    }
  }
  SECTION("another file") {
    const uint64_t at = WriteTornGroupThenIntact(o.dirs[0], 1, 0);
    o.cut_newest_tail_at = Override(o.dirs[0], 7, at);
    CHECK(absl::IsDataLoss(Replay(o, &entries).status()));
  }
  SECTION("an older file, where invalid bytes are damage, not a power loss") {
    const uint64_t at = WriteTornGroupThenIntact(o.dirs[0], 1, 0);
    WriteTornGroupThenIntact(o.dirs[0], 2, 4);
    o.cut_newest_tail_at = Override(o.dirs[0], 1, at);
    auto r = Replay(o, &entries);
    REQUIRE(absl::IsDataLoss(r.status()));
    // The older file's refusal offers only the general skip.
    const std::string msg(r.status().message());
    CHECK(msg.find("journalCutNewestTailAt") == std::string::npos);
    CHECK(msg.find("journalSkipCorruptRecords") != std::string::npos);
  }
  CHECK(entries.size() <= 4);
}

TEST_CASE("a malformed override is refused naming the key", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  JournalOptions o;
  o.dirs = {dir.Sub("journal")};
  for (const char* bad :
       {"no-offset", "/j/1.txn:", "/j/1.txn:-3", ":12", "/j/1.txn:12x"}) {
    INFO(bad);
    o.cut_newest_tail_at = bad;
    const absl::Status s = o.Validate();
    CHECK(absl::IsInvalidArgument(s));
    CHECK(s.message().find("journalCutNewestTailAt") !=
          absl::string_view::npos);
  }
}

}  // namespace
}  // namespace bk::bookie
