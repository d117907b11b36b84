// A flush on a ledger directory apart from the journals writes its entry
// log behind (EntryLogWriter::WriteBehind): chunks of flush_entry_log_bytes
// go to the device while the next one is appended, one at most queued, and
// one sync at the end makes them durable. On a journal's filesystem each
// chunk is synced instead.

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_writer.h"
#include "common/fault_env.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::SmallOptions;
using testing::SyncSpanEnv;

constexpr int kEntries = 40;
constexpr size_t kEntryBytes = 1000;
// A step ends at the first record that reaches the limit: at most one
// record (about 1.1 KB here) past it.
constexpr uint64_t kRecordSlack = 1200;

TEST_CASE(
    "a flush apart from the journals writes the entry log behind every "
    "flush_entry_log_bytes and syncs it once, at the end",
    "[storage]") {
  TempDir dir;
  SyncSpanEnv env(Env::Default());
  auto options = SmallOptions(dir.path());  // no journal_dirs: apart
  uint64_t limit = 0;
  SECTION("in steps of 4 KiB") { limit = 4 << 10; }
  SECTION("only at the end when the step is 0") { limit = 0; }
  options.flush_entry_log_bytes = limit;
  auto storage = LedgerStorage::Open(&env, options);
  REQUIRE(storage.ok());
  for (int64_t e = 0; e < kEntries; ++e) {
    REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e, kEntryBytes)).ok());
  }
  REQUIRE((*storage)->Flush().ok());

  // The new log's header when it is created, then the whole flush.
  const std::vector<uint64_t> spans = env.spans();
  REQUIRE(spans.size() == 2);
  CHECK(spans[1] > kEntries * kEntryBytes);

  const std::vector<SyncSpanEnv::Writeback> wbs = env.writebacks();
  if (limit == 0) {
    CHECK(wbs.empty());
  } else {
    REQUIRE(!wbs.empty());
    // Started ranges follow each other from the end of the header, each
    // one step; each range is waited for before the next starts, so one
    // step at most is queued at the device.
    const uint64_t first = wbs.front().offset;
    CHECK(first == entrylog::kFileHeaderSize);
    uint64_t started_to = first, waited_to = first;
    uint64_t starts = 0;
    for (const SyncSpanEnv::Writeback& wb : wbs) {
      INFO("write-back at " << wb.offset << " of " << wb.length
                            << (wb.wait ? " (wait)" : ""));
      if (wb.wait) {
        CHECK(wb.offset == waited_to);
        waited_to = wb.offset + wb.length;
        CHECK(waited_to <= started_to);
      } else {
        CHECK(wb.offset == started_to);
        CHECK(wb.length <= limit + kRecordSlack);
        CHECK(wb.offset + wb.length == wb.appended);
        CHECK(wb.offset == waited_to);
        started_to = wb.offset + wb.length;
        ++starts;
      }
    }
    // Every step but the last, which the sync covers.
    CHECK(starts >= kEntries * kEntryBytes / (limit + kRecordSlack) - 1);
  }
  for (int64_t e = 0; e < kEntries; ++e) {
    CHECK(IsEntry(*(*storage)->GetEntry(1, e), 1, e, kEntryBytes));
  }
}

// Adds and flushes kEntries with flush steps of 4 KiB, the journals in
// `journal_dirs`; checks every entry reads back.
// `shares_journal_disk`, when given, is the options' own.
void FlushWithJournalsIn(
    SyncSpanEnv* env, const std::string& dir,
    std::vector<std::string> journal_dirs,
    std::function<bool(const std::string&)> shares_journal_disk = nullptr) {
  auto options = SmallOptions(dir);
  options.flush_entry_log_bytes = 4 << 10;
  options.journal_dirs = std::move(journal_dirs);
  options.shares_journal_disk = std::move(shares_journal_disk);
  auto storage = LedgerStorage::Open(env, options);
  REQUIRE(storage.ok());
  for (int64_t e = 0; e < kEntries; ++e) {
    REQUIRE((*storage)->AddEntry(1, e, MakeEntry(1, e, kEntryBytes)).ok());
  }
  REQUIRE((*storage)->Flush().ok());
  for (int64_t e = 0; e < kEntries; ++e) {
    CHECK(IsEntry(*(*storage)->GetEntry(1, e), 1, e, kEntryBytes));
  }
}

TEST_CASE(
    "a ledger directory on a journal's filesystem syncs each step of a "
    "flush, so the journals have the disk between steps",
    "[storage]") {
  TempDir dir(TempDir::Where::kDisk);
  SyncSpanEnv env(Env::Default());
  // Not made yet: its parent's filesystem is the one it will be on.
  FlushWithJournalsIn(&env, dir.Sub("ledgers"), {dir.Sub("journal")});
  CHECK(env.writebacks().empty());
  const std::vector<uint64_t> spans = env.spans();
  uint64_t total = 0, largest = 0;
  for (uint64_t s : spans) total += s, largest = std::max(largest, s);
  CHECK(total > kEntries * kEntryBytes);
  CHECK(largest <= (4 << 10) + kRecordSlack);
  CHECK(spans.size() >= total / ((4 << 10) + kRecordSlack));
}

TEST_CASE("a ledger directory apart from every journal writes its flush behind",
          "[storage]") {
  TempDir ledgers(TempDir::Where::kDisk);
  TempDir journal(TempDir::Where::kMemory);
  auto a = Env::Default()->GetFsStats(ledgers.path());
  auto b = Env::Default()->GetFsStats(journal.path());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  // /dev/shm where it is writable, else the temp directory, which may be
  // on the disk: then the two share a filesystem and steps are synced.
  const bool apart = a->device != b->device;
  INFO("devices " << a->device << " and " << b->device);
  SyncSpanEnv env(Env::Default());
  FlushWithJournalsIn(&env, ledgers.path(), {journal.path()});
  CHECK(env.writebacks().empty() == !apart);
  // The header's sync, then one for the whole flush when written behind.
  if (apart) CHECK(env.spans().size() == 2);
  if (!apart) CHECK(env.spans().size() > 2);
}

// The daemon tells whether a ledger directory shares a journal's disk from
// the disks behind them (partitions of one disk are one disk), which
// st_dev cannot: its answer decides, both ways.
TEST_CASE(
    "a ledger directory said to share a journal's disk syncs each step, and "
    "one said to be apart writes behind, whatever their filesystems",
    "[storage]") {
  TempDir dir(TempDir::Where::kDisk);
  std::vector<std::string> asked;
  auto says = [&asked](bool shares) {
    return [&asked, shares](const std::string& ledger_dir) {
      asked.push_back(ledger_dir);
      return shares;
    };
  };
  SECTION("one filesystem, said to be apart") {
    SyncSpanEnv env(Env::Default());
    FlushWithJournalsIn(&env, dir.Sub("ledgers"), {dir.Sub("journal")},
                        says(false));
    CHECK_FALSE(env.writebacks().empty());
    CHECK(env.spans().size() == 2);
  }
  SECTION("a filesystem of its own, said to share the disk") {
    TempDir journal(TempDir::Where::kMemory);
    SyncSpanEnv env(Env::Default());
    FlushWithJournalsIn(&env, dir.Sub("ledgers"), {journal.path()}, says(true));
    CHECK(env.writebacks().empty());
    CHECK(env.spans().size() > 2);
  }
  CHECK(asked == std::vector<std::string>{dir.Sub("ledgers")});
}

// Appends `n` entries of kEntryBytes as one batch.
absl::Status AppendBatch(EntryLogWriter* w, int64_t first, int n,
                         std::vector<EntryBuffer>* keep) {
  std::vector<EntryLogItem> items;
  for (int i = 0; i < n; ++i) {
    keep->push_back(MakeEntry(1, first + i, kEntryBytes));
    items.push_back({1, first + i, *keep->back()});
  }
  std::vector<uint64_t> offsets(items.size());
  return w->Append(items, absl::MakeSpan(offsets));
}

TEST_CASE("bytes written behind are not durable until the entry log syncs",
          "[storage]") {
  TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto w = EntryLogWriter::Create(&env, dir.path(), 1);
  REQUIRE(w.ok());
  REQUIRE(!(*w)->direct());
  std::vector<EntryBuffer> keep;
  for (int round = 0; round < 3; ++round) {
    REQUIRE(AppendBatch(w->get(), round * 4, 4, &keep).ok());
    REQUIRE((*w)->WriteBehind().ok());
  }
  const uint64_t appended = (*w)->size() - entrylog::kFileHeaderSize;
  CHECK(env.UnsyncedBytes() == appended);

  SECTION("a power cut keeps only the header") {
    REQUIRE(env.PowerCut().ok());
    auto size = Env::Default()->GetFileSize(dir.path() + "/" +
                                            entrylog::LogFileName(1));
    REQUIRE(size.ok());
    CHECK(*size == entrylog::kFileHeaderSize);
  }
  SECTION("the sync makes all of it durable") {
    REQUIRE((*w)->Sync().ok());
    CHECK(env.UnsyncedBytes() == 0);
  }
}

TEST_CASE("a failed write-back breaks the entry log writer for good",
          "[storage]") {
  TempDir dir;
  SyncSpanEnv env(Env::Default());
  auto w = EntryLogWriter::Create(&env, dir.path(), 1);
  REQUIRE(w.ok());
  std::vector<EntryBuffer> keep;
  REQUIRE(AppendBatch(w->get(), 0, 4, &keep).ok());
  env.fail_writeback(absl::InternalError("write-back: Input/output error"));
  const absl::Status failed = (*w)->WriteBehind();
  REQUIRE(!failed.ok());
  CHECK(failed.message() == "write-back: Input/output error");
  // Sticky, as after a failed sync: nothing is appended or synced again.
  env.fail_writeback(absl::OkStatus());
  CHECK((*w)->WriteBehind() == failed);
  CHECK(AppendBatch(w->get(), 4, 1, &keep) == failed);
  CHECK((*w)->Sync() == failed);
  CHECK((*w)->status() == failed);
}

}  // namespace
}  // namespace bk::bookie
