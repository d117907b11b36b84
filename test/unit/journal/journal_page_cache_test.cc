// journalRemoveFromPageCache: once a sync has made a group durable its pages
// leave the page cache, and with the option off they stay. Runs on a disk
// directory (a tmpfs keeps every page: it has no backing store to drop to).

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "bookie/journal/journal.h"
#include "test/support/resident_pages.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ResidentPages;
using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

constexpr int kEntries = 64;
constexpr int64_t kEntryBytes = 8192;  // 64 x 8 KiB: 128 pages and more

// The journal file the adds went to: the largest regular file of `dir`.
std::string LargestFile(const std::string& dir) {
  std::string best;
  uintmax_t best_size = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.file_size() > best_size) {
      best = e.path().string();
      best_size = e.file_size();
    }
  }
  return best;
}

// Adds kEntries one at a time (each synced before the next) and returns
// the journal file's resident pages while the journal is still open.
int64_t ResidentAfterAdds(const std::string& dir, bool remove) {
  JournalOptions o;
  o.dirs = {dir};
  o.flush_when_queue_empty = true;
  o.remove_from_page_cache = remove;
  auto j = Started(Env::Default(), o);
  for (int64_t e = 0; e < kEntries; ++e) {
    auto w = std::make_shared<AddWaiter>();
    REQUIRE(j->Add(RT::kEntry, 7, e,
                   Payload(std::string(static_cast<size_t>(kEntryBytes), 'j')),
                   Notify(w))
                .ok());
    REQUIRE(w->Ready());
    REQUIRE(w->future.get().ok());
  }
  const std::string file = LargestFile(dir);
  REQUIRE(!file.empty());
  const int64_t resident = ResidentPages(file);
  j->Stop();
  return resident;
}

TEST_CASE(
    "a synced journal group leaves the page cache, and stays without "
    "journalRemoveFromPageCache",
    "[journal]") {
  TempDir on(TempDir::Where::kDisk), off(TempDir::Where::kDisk);
  const int64_t dropped = ResidentAfterAdds(on.path(), true);
  const int64_t kept = ResidentAfterAdds(off.path(), false);
  INFO("resident pages: dropped " << dropped << ", kept " << kept);
  REQUIRE(dropped >= 0);
  // At most the page the last group ended in, which a later group fills.
  CHECK(dropped <= 1);
  CHECK(kept >= kEntries * kEntryBytes / 4096);
}

}  // namespace
}  // namespace bk::bookie
