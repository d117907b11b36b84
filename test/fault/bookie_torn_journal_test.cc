// A real bookie process whose journal is torn or corrupt when it starts
// (item 3): a sample of cut offsets after SIGKILL, each start serving every
// earlier entry (every offset is covered in process by
// torn_journal_store_test.cc); a bit flip in a middle record refuses start
// with the file and offset in the log, or is skipped with
// journalSkipCorruptRecords, never served.
//
// Prints its seed and writes its figures (figures.h).

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"
#include "test/fault/bookie_fault_util.h"
#include "test/fault/figures.h"
#include "test/fault/journal_records.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

namespace fs = std::filesystem;
using RT = bookie::journal_format::RecordType;

using fault::JournalFile;
using fault::RecordsOf;
using JRecord = fault::JournalRecord;

void CopyTree(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::copy(from, to, fs::copy_options::recursive);
}

void Overwrite(const std::string& path, uint64_t offset,
               const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

// ---------------------------------------------------------------- item 3

TEST_CASE(
    "a real bookie whose journal tail is cut starts and serves every earlier "
    "entry, and a corrupt middle record refuses start or is skipped, never "
    "served",
    "[fault][journal]") {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto b =
      StartBookie(BookieOptions(dir, "bk-torn", FreshZkUri("torn"), Flags()));
  constexpr uint64_t L = 3;
  constexpr int64_t kEntries = 6;
  {
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries; ++e)
      REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k", 60 + e * 10)) ==
              proto::BK_EOK);
  }
  b->Kill();  // SIGKILL: entries live only in the journal
  const std::string jdir = b->journal_dir(), ldir = b->ledger_dir();
  CopyTree(jdir, dir.Sub("saved-journal"));
  CopyTree(ldir, dir.Sub("saved-ledgers"));
  const std::string jname = fs::path(JournalFile(jdir)).filename().string();
  const auto records = RecordsOf(JournalFile(jdir));
  REQUIRE(records.back().type == RT::kEntry);
  REQUIRE(records.back().entry_id == kEntries - 1);
  const JRecord last = records.back();
  auto restore = [&] {
    CopyTree(dir.Sub("saved-journal"), jdir);
    CopyTree(dir.Sub("saved-ledgers"), ldir);
  };
  auto size_of = [&](int64_t e) { return static_cast<size_t>(60 + e * 10); };

  // A sample of the cut offsets: the record's first byte, inside its
  // header, the header's end, inside the payload, its last byte, random.
  const uint64_t h = bookie::journal_format::kRecordHeaderSize;
  std::vector<uint64_t> cuts = {last.offset,
                                last.offset + 1,
                                last.offset + h - 1,
                                last.offset + h,
                                (last.offset + last.end) / 2,
                                last.end - 1};
  for (int i = 0; i < 2; ++i)
    cuts.push_back(last.offset + rng() % (last.end - last.offset));
  int started = 0, intact = 0, never_served = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    const uint64_t cut = cuts[i];
    const bool zero_fill = i % 2 == 1;
    INFO("seed " << seed << " cut at " << cut
                 << (zero_fill ? " (zeroed)" : ""));
    restore();
    if (zero_fill) {
      Overwrite(jdir + "/" + jname, cut, std::string(last.end - cut, '\0'));
    } else {
      fs::resize_file(jdir + "/" + jname, cut);
    }
    BK_REQUIRE_OK(b->Restart());
    ++started;
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries - 1; ++e) {
      REQUIRE(ReadsBackIntact(stub.get(), L, e, size_of(e)));
      ++intact;
    }
    CHECK(Read(stub.get(), L, kEntries - 1).status() == proto::BK_ENOENTRY);
    ++never_served;
    b->Signal(SIGTERM);
    REQUIRE(b->WaitExit(absl::Seconds(20)).ok());
  }

  // A flipped bit in a middle record's payload: start refused, with the
  // file and offset named.
  const JRecord* mid = nullptr;
  for (const auto& r : records)
    if (r.type == RT::kEntry && r.entry_id == 2) mid = &r;
  REQUIRE(mid != nullptr);
  const uint64_t flip_at =
      mid->offset + h + rng() % (mid->end - mid->offset - h);
  const int flip_bit = static_cast<int>(rng() % 8);
  auto damage = [&] {
    restore();
    std::ifstream in(jdir + "/" + jname, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(flip_at));
    char c = 0;
    in.read(&c, 1);
    Overwrite(jdir + "/" + jname, flip_at,
              std::string(1, static_cast<char>(c ^ (1 << flip_bit))));
  };
  damage();
  BK_REQUIRE_OK(b->Restart({}, /*wait=*/false));
  auto exit = b->WaitExit(absl::Seconds(30));
  REQUIRE(exit.ok());
  const std::string refused_log = b->Log();
  INFO(refused_log);
  const bool refused = exit->signal == 0 && exit->exit_code != 0;
  CHECK(refused);
  const bool clear =
      absl::StrContains(refused_log, jname) &&
      absl::StrContains(refused_log, absl::StrCat("offset ", mid->offset)) &&
      absl::StrContains(refused_log, "journalSkipCorruptRecords");
  CHECK(clear);

  // The same damage with journalSkipCorruptRecords=true: starts, reports,
  // does not serve the damaged entry, serves the rest.
  BK_REQUIRE_OK(b->Restart({{"journalSkipCorruptRecords", "true"}}));
  const bool reported = absl::StrContains(b->Log(), "1 corrupt ranges skipped");
  CHECK(reported);
  bool damaged_not_served, rest_intact = true;
  {
    auto stub = Connect(b->grpc_target());
    damaged_not_served = Read(stub.get(), L, 2).status() == proto::BK_ENOENTRY;
    for (int64_t e = 0; e < kEntries; ++e)
      if (e != 2) rest_intact &= ReadsBackIntact(stub.get(), L, e, size_of(e));
  }
  CHECK(damaged_not_served);
  CHECK(rest_intact);

  // The same damage, started once with the override the refusal printed
  // (for a power loss: this file is the newest): the file is cut at the
  // damaged record; the entries before it are served, it and the ones after
  // are gone (acknowledged here, as this is damage: the refusal says so).
  const std::string kFlag = "--journalCutNewestTailAt=";
  const size_t flag_at = refused_log.find(kFlag);
  REQUIRE(flag_at != std::string::npos);
  const size_t value_at = flag_at + kFlag.size();
  const std::string cut_value =
      refused_log.substr(value_at, refused_log.find(' ', value_at) - value_at);
  CHECK(cut_value == absl::StrCat(jdir, "/", jname, ":", mid->offset));
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(20)).ok());
  damage();
  BK_REQUIRE_OK(b->Restart({{"journalSkipCorruptRecords", "false"},
                            {"journalCutNewestTailAt", cut_value}}));
  bool before_intact = true, from_cut_gone = true;
  {
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries; ++e) {
      if (e < 2) {
        before_intact &= ReadsBackIntact(stub.get(), L, e, size_of(e));
      } else {
        from_cut_gone &= Read(stub.get(), L, e).status() == proto::BK_ENOENTRY;
      }
    }
  }
  CHECK(before_intact);
  CHECK(from_cut_gone);

  fault::Figures fig("torn_journal_process");
  const std::string item = "3 torn journal (process)";
  fig.Add(item, "sampled tail cuts: bookie started",
          absl::StrCat(started, "/", cuts.size()), "all",
          started == static_cast<int>(cuts.size()));
  fig.Add(item, "cut record never served",
          absl::StrCat(never_served, "/", cuts.size()), "all",
          never_served == static_cast<int>(cuts.size()));
  fig.Add(item, "middle bit flip: start refused naming file+offset",
          refused && clear ? "yes" : "no", "yes", refused && clear);
  fig.Add(item, "skip mode: started, reported, damaged entry not served",
          reported && damaged_not_served && rest_intact ? "yes" : "no", "yes",
          reported && damaged_not_served && rest_intact);
  fig.Add(item, "printed journalCutNewestTailAt: started, cut at the record",
          before_intact && from_cut_gone ? "yes" : "no", "yes",
          before_intact && from_cut_gone);
}

}  // namespace
}  // namespace bk::it
