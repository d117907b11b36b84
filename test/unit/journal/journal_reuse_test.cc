// Recycled journal files (journalReuseFiles, journal_files.h): files the
// checkpoint has passed are reused instead of created, at most two are kept,
// a reused file's old records are never replayed, files the journal leaves
// are cut to what it wrote in them, and an Env that cannot reopen files
// falls back to removing them. Power cuts in reused files:
// journal_crash_test.cc.

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using testing::Started;
using RT = journal_format::RecordType;

JournalOptions Recycling(const std::string& dir, bool direct) {
  JournalOptions o;
  o.dirs = {dir};
  o.direct_io = direct;
  o.reuse_files = true;
  o.max_backups = 0;
  o.max_file_size_bytes = 64 * 1024;
  o.preallocate_bytes = 64 * 1024;
  o.flush_when_queue_empty = true;
  return o;
}

std::string PayloadOf(int64_t entry) {
  // Distinct content per entry, so an old record could not pass for a new
  // one of the same size.
  return absl::StrCat("entry-", entry, "-",
                      std::string(9000, 'a' + entry % 26));
}

void AddAndWait(Journal* j, int64_t entry) {
  auto w = std::make_shared<AddWaiter>();
  REQUIRE(
      j->Add(RT::kEntry, 1, entry, Payload(PayloadOf(entry)), Notify(w)).ok());
  REQUIRE(w->Ready());
  REQUIRE(w->future.get().ok());
}

std::map<int64_t, std::string> ReplayEntries(Env* env, const JournalOptions& o,
                                             JournalReplayReport* report) {
  std::map<int64_t, std::string> out;
  Journal j(env, o);
  auto r = j.Replay([&](const JournalRecordView& rec) {
    REQUIRE(out.count(rec.entry_id) == 0);  // each record once
    out[rec.entry_id] = std::string(rec.payload);
    return absl::OkStatus();
  });
  REQUIRE(r.ok());
  *report = *r;
  return out;
}

TEST_CASE(
    "files the checkpoint passed are reused, at most two are kept, and "
    "replay returns only what follows the checkpoint",
    "[journal]") {
  for (bool direct : {true, false}) {
    INFO((direct ? "O_DIRECT on disk" : "page cache"));
    TempDir dir(TempDir::Where::kDisk);
    const JournalOptions o = Recycling(dir.Sub("journal"), direct);
    int64_t checkpointed_below = 0;
    {
      auto j = Started(Env::Default(), o);
      for (int64_t e = 0; e < 120; ++e) {
        AddAndWait(j.get(), e);
        if (e % 10 == 9 && e < 110) {
          REQUIRE(j->Checkpoint(j->CurrentMark()).ok());
          checkpointed_below = e + 1;
          auto ids = ListJournalFiles(Env::Default(), o.dirs[0]);
          REQUIRE(ids.ok());
          // The current file, at most two kept for reuse, and files written
          // since this checkpoint's file.
          CHECK(ids->size() <= 3);
        }
      }
      const JournalStats stats = j->Stats();
      CHECK(stats.files_reused >= 10);
      CHECK(stats.files_created <= 4);
      j->Stop();
    }
    // Every file but the newest was left by a roll and cut to what was
    // written in it; the newest was cut at Stop: nothing is torn.
    auto ids = ListJournalFiles(Env::Default(), o.dirs[0]);
    REQUIRE(ids.ok());
    for (uint64_t id : *ids) {
      CHECK(*Env::Default()->GetFileSize(JournalFilePath(o.dirs[0], id)) <=
            o.max_file_size_bytes);
    }
    JournalReplayReport report;
    const auto replayed = ReplayEntries(Env::Default(), o, &report);
    CHECK(report.torn_bytes_cut == 0);
    REQUIRE(!replayed.empty());
    CHECK(replayed.begin()->first == checkpointed_below);
    CHECK(replayed.rbegin()->first == 119);
    CHECK(replayed.size() == static_cast<size_t>(120 - checkpointed_below));
    for (const auto& [e, payload] : replayed) CHECK(payload == PayloadOf(e));
  }
}

TEST_CASE(
    "after a crash in a reused file replay cuts its old records as a torn "
    "tail and keeps every acknowledged add",
    "[journal]") {
  TempDir dir(TempDir::Where::kDisk);
  const JournalOptions o = Recycling(dir.Sub("journal"), true);
  std::string copy;
  std::string newest_path;
  {
    auto j = Started(Env::Default(), o);
    // Five adds fill a file (12 KiB a padded group after a 4 KiB header
    // block); 57 leave the newest two groups into a reused one.
    for (int64_t e = 0; e < 57; ++e) {
      AddAndWait(j.get(), e);
      if (e % 5 == 4) REQUIRE(j->Checkpoint(j->CurrentMark()).ok());
    }
    REQUIRE(j->Stats().files_reused > 0);
    // As a crash would leave it: the newest file with the old records of
    // its previous life after the last group. A copy taken now holds
    // exactly that (Stop cuts it).
    auto ids = ListJournalFiles(Env::Default(), o.dirs[0]);
    REQUIRE(ids.ok());
    newest_path = JournalFilePath(o.dirs[0], ids->back());
    copy = testing::ReadRaw(newest_path);
    j->Stop();
  }
  const std::string stopped = testing::ReadRaw(newest_path);
  // The reused file was longer than what this life wrote in it.
  REQUIRE(copy.size() > stopped.size());
  testing::WriteRaw(newest_path, copy);
  JournalReplayReport report;
  const auto replayed = ReplayEntries(Env::Default(), o, &report);
  CHECK(report.torn_bytes_cut == copy.size() - stopped.size());
  // The last checkpoint covered entry 54.
  CHECK(replayed == std::map<int64_t, std::string>{{55, PayloadOf(55)},
                                                   {56, PayloadOf(56)}});
  // The replayed journal takes new adds after the cut file.
  auto j = Started(Env::Default(), o);
  AddAndWait(j.get(), 57);
  j->Stop();
  const auto again = ReplayEntries(Env::Default(), o, &report);
  CHECK(again.size() == 3);
  CHECK(again.count(57) == 1);
}

TEST_CASE(
    "through the page cache every group in a reused file ends on a page "
    "boundary",
    "[journal]") {
  TempDir dir(TempDir::Where::kDisk);
  const JournalOptions o = Recycling(dir.Sub("journal"), false);
  auto j = Started(Env::Default(), o);
  int in_reused = 0;
  for (int64_t e = 0; e < 62; ++e) {
    AddAndWait(j.get(), e);
    const JournalPosition end = j->CurrentMark().positions[0];
    auto size =
        Env::Default()->GetFileSize(JournalFilePath(o.dirs[0], end.file_id));
    REQUIRE(size.ok());
    if (*size > end.offset) {  // old content past the end: a reused file
      INFO("entry " << e << " ends at " << end.offset);
      CHECK(end.offset % 4096 == 0);
      ++in_reused;
    }
    if (e % 5 == 4) REQUIRE(j->Checkpoint(j->CurrentMark()).ok());
  }
  CHECK(in_reused >= 10);
  CHECK(j->Stats().padding_bytes > 0);
  j->Stop();
  JournalReplayReport report;
  // Padding is skipped: the two adds after the last checkpoint, intact.
  const auto replayed = ReplayEntries(Env::Default(), o, &report);
  CHECK(replayed == std::map<int64_t, std::string>{{60, PayloadOf(60)},
                                                   {61, PayloadOf(61)}});
  CHECK(report.torn_bytes_cut == 0);
}

TEST_CASE("an Env that cannot reopen files gets retired files removed",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  EnvWrapper plain(Env::Default());  // does not forward ReopenWritableFile
  const JournalOptions o = Recycling(dir.Sub("journal"), false);
  auto j = Started(&plain, o);
  for (int64_t e = 0; e < 40; ++e) {
    AddAndWait(j.get(), e);
    if (e % 5 == 4) REQUIRE(j->Checkpoint(j->CurrentMark()).ok());
  }
  const JournalStats stats = j->Stats();
  CHECK(stats.files_reused == 0);
  CHECK(stats.files_removed > 0);
  auto ids = ListJournalFiles(&plain, o.dirs[0]);
  REQUIRE(ids.ok());
  CHECK(ids->size() <= 4);
}

}  // namespace
}  // namespace bk::bookie
