// Torn and corrupt journals at the store level (BookieStoreImpl, in
// process): the newest journal file is cut at every byte offset of its last
// record, and bit flips are put in a middle record. Every variant runs on a
// fresh copy of the same directories, so each start-up sees exactly one
// damage. The process-level version (a real bookie, a sample of offsets)
// is torn_journal_process_test.cc.
//
// Promises: a cut tail starts and serves every entry before the cut record
// intact and never the cut one; a flipped bit in a middle record refuses
// start with DataLoss naming the file and offset, or (skip option) starts,
// reports the skipped range and does not serve the damaged entry.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/journal/journal_reader.h"
#include "test/fault/figures.h"
#include "test/fault/journal_records.h"
#include "test/unit/bookie/store_test_util.h"

namespace bk::bookie {
namespace {

namespace fs = std::filesystem;
using testing::Add;
using testing::OptionsIn;
using testing::PayloadOf;
using RT = journal_format::RecordType;

constexpr uint64_t kLedger = 5;

std::string PayloadFor(int64_t e) {
  std::string p = absl::StrCat("entry-", e, ":");
  const size_t size = 20 + static_cast<size_t>(e * 37 % 150);
  while (p.size() < size) p.push_back(static_cast<char>('a' + p.size() % 26));
  return p;
}

using fault::JournalFile;
using fault::RecordsOf;
using Record = fault::JournalRecord;

// Directories holding entries 0..n-1 of kLedger, acknowledged and never
// flushed: they live only in the journal.
struct Pristine {
  bk::testing::TempDir dir;
  std::string journal_file;
  std::vector<Record> records;
  int64_t entries = 0;
};

std::unique_ptr<Pristine> MakePristine(int64_t n) {
  auto p = std::make_unique<Pristine>();
  p->entries = n;
  StoreOptions o = OptionsIn(p->dir);
  o.storage.background_flush = false;
  o.journal.buffered_entries_threshold = 1;  // one record per sync
  {
    auto store = BookieStoreImpl::Open(Env::Default(), o);
    REQUIRE(store.ok());
    for (int64_t e = 0; e < n; ++e)
      REQUIRE(Add(store->get(), kLedger, e, e - 1, PayloadFor(e)).ok());
    // Destroyed without Close: like SIGKILL after the acknowledgements.
  }
  p->journal_file = JournalFile(p->dir.Sub("journal"));
  p->records = RecordsOf(p->journal_file);
  REQUIRE(!p->records.empty());
  REQUIRE(p->records.back().type == RT::kEntry);
  REQUIRE(p->records.back().entry_id == n - 1);
  return p;
}

// A copy of the pristine directories under `to`.
StoreOptions CopyOf(const Pristine& p, const bk::testing::TempDir& to) {
  fs::copy(p.dir.path(), to.path(),
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  StoreOptions o = OptionsIn(to);
  o.storage.background_flush = false;
  return o;
}

std::string Copied(const Pristine& p, const bk::testing::TempDir& to) {
  return to.Sub("journal") + "/" + fs::path(p.journal_file).filename().string();
}

void OverwriteAt(const std::string& path, uint64_t offset,
                 const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

char ByteAt(const std::string& path, uint64_t offset) {
  std::ifstream f(path, std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  return c;
}

// Entry `e` is served intact, or (when !present) not at all; a served
// entry is never corrupt.
void CheckEntry(BookieStoreImpl* store, int64_t e, bool present) {
  auto got = store->ReadEntry(kLedger, e);
  INFO("entry " << e);
  if (present) {
    REQUIRE(got.ok());
    REQUIRE(PayloadOf(*got) == PayloadFor(e));
  } else {
    REQUIRE(!got.ok());
    REQUIRE(absl::IsNotFound(got.status()));
  }
}

TEST_CASE(
    "store cut at every byte of the journal's last record starts and "
    "serves every earlier entry",
    "[fault][journal]") {
  auto p = MakePristine(6);
  const Record last = p->records.back();
  int starts = 0, served = 0;
  for (int mode = 0; mode < 2; ++mode) {  // 0: truncate, 1: zero-fill
    for (uint64_t cut = last.offset; cut < last.end; ++cut) {
      INFO((mode == 0 ? "truncated" : "zero-filled")
           << " at " << cut << " (last record [" << last.offset << ", "
           << last.end << "))");
      bk::testing::TempDir copy;
      StoreOptions o = CopyOf(*p, copy);
      const std::string jf = Copied(*p, copy);
      if (mode == 0) {
        fs::resize_file(jf, cut);
      } else {
        OverwriteAt(jf, cut, std::string(last.end - cut, '\0'));
      }
      StartupReport report;
      auto store = BookieStoreImpl::Open(Env::Default(), o, &report);
      REQUIRE(store.ok());
      ++starts;
      if (mode == 0) CHECK(report.journal.torn_bytes_cut == cut - last.offset);
      for (int64_t e = 0; e < p->entries - 1; ++e) {
        CheckEntry(store->get(), e, true);
        ++served;
      }
      CheckEntry(store->get(), p->entries - 1, false);
      // The cut entry can be written again and is then served.
      REQUIRE(Add(store->get(), kLedger, p->entries - 1, p->entries - 2,
                  PayloadFor(p->entries - 1))
                  .ok());
      CheckEntry(store->get(), p->entries - 1, true);
    }
  }
  const int expected = static_cast<int>(2 * (last.end - last.offset));
  fault::Figures fig("torn_journal_store_tail");
  fig.Add("3 torn journal (store)", "cut offsets started",
          absl::StrCat(starts, "/", expected), "all", starts == expected);
  fig.Add("3 torn journal (store)", "earlier entries served intact",
          absl::StrCat(served), "all", true);
}

TEST_CASE(
    "store refuses a bit flip in a middle journal record, naming file and "
    "offset, and with skip it starts and never serves the damaged entry",
    "[fault][journal]") {
  auto p = MakePristine(7);
  // A middle entry record: records before and after it are valid.
  const Record* mid = nullptr;
  for (const auto& r : p->records)
    if (r.type == RT::kEntry && r.entry_id == 3) mid = &r;
  REQUIRE(mid != nullptr);
  const std::string name = fs::path(p->journal_file).filename().string();
  int refused = 0, skipped_ok = 0, flips = 0;
  for (uint64_t at = mid->offset; at < mid->end; ++at) {
    const int bit = static_cast<int>(at % 8);
    for (bool skip : {false, true}) {
      // Skip mode on a sample of the bytes: every header byte, every 7th
      // payload byte.
      if (skip && at - mid->offset >= journal_format::kRecordHeaderSize &&
          (at - mid->offset) % 7 != 0)
        continue;
      INFO("bit " << bit << " of byte " << at << " flipped, skip=" << skip);
      bk::testing::TempDir copy;
      StoreOptions o = CopyOf(*p, copy);
      o.journal.skip_corrupt_records = skip;
      const std::string jf = Copied(*p, copy);
      OverwriteAt(
          jf, at,
          std::string(1, static_cast<char>(ByteAt(jf, at) ^ (1 << bit))));
      StartupReport report;
      auto store = BookieStoreImpl::Open(Env::Default(), o, &report);
      ++flips;
      if (!skip) {
        REQUIRE(!store.ok());
        INFO(store.status().ToString());
        CHECK(absl::IsDataLoss(store.status()));
        CHECK(absl::StrContains(store.status().message(), name));
        CHECK(absl::StrContains(store.status().message(),
                                absl::StrCat("offset ", mid->offset)));
        CHECK(absl::StrContains(store.status().message(),
                                "journalSkipCorruptRecords"));
        ++refused;
        continue;
      }
      REQUIRE(store.ok());
      CHECK(report.journal.skipped_ranges >= 1);
      for (int64_t e = 0; e < p->entries; ++e)
        CheckEntry(store->get(), e, e != 3);
      ++skipped_ok;
    }
  }
  fault::Figures fig("torn_journal_store_middle");
  fig.Add("3 torn journal (store)", "middle bit flips refused",
          absl::StrCat(refused, "/", mid->end - mid->offset), "all",
          refused == static_cast<int>(mid->end - mid->offset));
  fig.Add("3 torn journal (store)", "skip mode: started, damaged not served",
          absl::StrCat(skipped_ok, "/", flips - refused), "all",
          skipped_ok == flips - refused);
}

}  // namespace
}  // namespace bk::bookie
