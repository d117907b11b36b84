// entryLogRemoveFromPageCache: a flush's entry-log syncs drop the pages they
// made durable, but for the newest entryLogPageCacheKeepBytes, and the
// flushed entries still read back (from the disk).
// Runs on a disk directory (a tmpfs keeps every page).

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "test/support/resident_pages.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ResidentPages;
using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::SmallOptions;

constexpr int kEntries = 200;
constexpr int64_t kEntryBytes = 4000;  // 800 KB: about 195 pages

std::string EntryLogIn(const std::string& dir) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".log") {
      return e.path().string();
    }
  }
  return "";
}

// Writes and flushes kEntries, returns the entry log's resident pages,
// then checks every entry reads back.
int64_t ResidentAfterFlush(const std::string& dir, bool remove,
                           uint64_t keep_bytes = 0) {
  LedgerStorageOptions o = SmallOptions(dir);
  o.entry_log_remove_from_page_cache = remove;
  o.entry_log_page_cache_keep_bytes = keep_bytes;
  auto storage = LedgerStorage::Open(Env::Default(), o);
  REQUIRE(storage.ok());
  for (int64_t e = 0; e < kEntries; ++e) {
    REQUIRE((*storage)->AddEntry(3, e, MakeEntry(3, e, kEntryBytes)).ok());
  }
  REQUIRE((*storage)->Flush().ok());
  const std::string log = EntryLogIn(dir);
  REQUIRE(!log.empty());
  const int64_t resident = ResidentPages(log);
  for (int64_t e = 0; e < kEntries; ++e) {
    auto got = (*storage)->GetEntry(3, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 3, e, kEntryBytes));
  }
  return resident;
}

TEST_CASE(
    "a flushed entry log leaves the page cache and still reads back, and "
    "stays cached without entryLogRemoveFromPageCache",
    "[storage]") {
  TempDir on(TempDir::Where::kDisk), off(TempDir::Where::kDisk);
  const int64_t dropped = ResidentAfterFlush(on.path(), true);
  const int64_t kept = ResidentAfterFlush(off.path(), false);
  INFO("resident pages: dropped " << dropped << ", kept " << kept);
  REQUIRE(dropped >= 0);
  CHECK(dropped <= 1);  // the page the flush ended in
  CHECK(kept >= kEntries * kEntryBytes / 4096);
}

TEST_CASE("a flush keeps the newest entryLogPageCacheKeepBytes cached",
          "[storage]") {
  TempDir dir(TempDir::Where::kDisk);
  constexpr uint64_t kKeep = 100 * 4096;
  const int64_t resident = ResidentAfterFlush(dir.path(), true, kKeep);
  INFO("resident pages " << resident);
  // The kept tail's 100 pages stay; of the 98 before them most are gone
  // (the kernel skips a page another CPU's LRU batch still holds).
  CHECK(resident >= 99);
  CHECK(resident <= 150);
}

}  // namespace
}  // namespace bk::bookie
