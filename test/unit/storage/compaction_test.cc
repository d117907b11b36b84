// Garbage collection and compaction.

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::SmallOptions;

int CountLogs(const std::string& dir) {
  auto children = Env::Default()->GetChildren(dir);
  int n = 0;
  for (const auto& c : *children) n += absl::EndsWith(c, ".log");
  return n;
}

TEST_CASE(
    "compaction keeps every live entry readable and removes the old "
    "logs",
    "[storage]") {
  const uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  // Buffered (version 1) and direct (version 2, padded) entry logs.
  const bool direct = GENERATE(false, true);
  INFO("entryLogDirectIo " << direct);
  TempDir dir(direct ? TempDir::Where::kDisk : TempDir::Where::kTmp);
  auto options = SmallOptions(dir.path());
  options.entry_log_size_limit = 64 << 10;
  options.entry_log_direct_io = direct;
  constexpr int kLedgers = 20, kEntries = 30;
  std::set<uint64_t> deleted;
  {
    auto storage = LedgerStorage::Open(Env::Default(), options);
    REQUIRE(storage.ok());
    auto& s = **storage;
    // Interleave ledgers across flushes so every log holds many ledgers.
    for (int round = 0; round < 3; ++round) {
      for (uint64_t l = 1; l <= kLedgers; ++l) {
        for (int64_t e = round * 10; e < (round + 1) * 10; ++e) {
          REQUIRE(s.AddEntry(l, e, MakeEntry(l, e, 300)).ok());
        }
      }
      REQUIRE(s.Flush().ok());
    }
    const int logs_before = CountLogs(dir.path());
    REQUIRE(logs_before >= 4);
    // Delete about 85% of the ledgers (the filter stands in for metadata).
    for (uint64_t l = 1; l <= kLedgers; ++l) {
      if (rng() % 100 < 85) deleted.insert(l);
    }
    auto r = s.RunGc([&](uint64_t l) { return deleted.contains(l); }, 0.8);
    REQUIRE(r.ok());
    CHECK(r->deleted_ledgers == deleted.size());
    CHECK(r->removed_logs >= 1);
    const StorageStats st = s.GetStats();
    CHECK(st.removed_logs == r->removed_logs);
    CHECK(st.compaction_moved_entries == r->moved_entries);
    // Live entries of compacted logs moved; the current log is never
    // compacted, so some live entries may stay where they are.
    CHECK(r->moved_entries <= (kLedgers - deleted.size()) * kEntries);
    for (uint64_t l = 1; l <= kLedgers; ++l) {
      for (int64_t e = 0; e < kEntries; ++e) {
        auto got = s.GetEntry(l, e);
        if (deleted.contains(l)) {
          CHECK(absl::IsNotFound(got.status()));
        } else {
          REQUIRE(got.ok());
          CHECK(IsEntry(*got, l, e, 300));
        }
      }
    }
    CHECK(CountLogs(dir.path()) < logs_before);
  }
  // And after reopen, from the logs written by compaction.
  auto storage = LedgerStorage::Open(Env::Default(), options);
  REQUIRE(storage.ok());
  for (uint64_t l = 1; l <= kLedgers; ++l) {
    if (deleted.contains(l)) continue;
    for (int64_t e = 0; e < kEntries; ++e) {
      auto got = (*storage)->GetEntry(l, e);
      REQUIRE(got.ok());
      CHECK(IsEntry(*got, l, e, 300));
    }
  }
}

TEST_CASE("a log whose ledgers are all deleted is removed without copying",
          "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.path());
  options.entry_log_size_limit = 16 << 10;
  auto storage = LedgerStorage::Open(Env::Default(), options);
  REQUIRE(storage.ok());
  auto& s = **storage;
  for (int64_t e = 0; e < 40; ++e) {
    REQUIRE(s.AddEntry(1, e, MakeEntry(1, e, 1000)).ok());
  }
  REQUIRE(s.Flush().ok());
  for (int64_t e = 0; e < 5; ++e) {
    REQUIRE(s.AddEntry(2, e, MakeEntry(2, e, 1000)).ok());
  }
  REQUIRE(s.Flush().ok());
  REQUIRE(s.DeleteLedger(1).ok());
  auto r = s.RunGc(nullptr, 0.0);
  REQUIRE(r.ok());
  CHECK(r->removed_logs >= 2);
  CHECK(r->moved_entries == 0);
  for (int64_t e = 0; e < 5; ++e) CHECK(IsEntry(*s.GetEntry(2, e), 2, e, 1000));
}

TEST_CASE("a log above the compaction threshold is left alone", "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.path());
  options.entry_log_size_limit = 16 << 10;
  auto storage = LedgerStorage::Open(Env::Default(), options);
  REQUIRE(storage.ok());
  auto& s = **storage;
  for (int64_t e = 0; e < 40; ++e) {
    REQUIRE(s.AddEntry(1 + e % 4, e, MakeEntry(1 + e % 4, e, 1000)).ok());
  }
  REQUIRE(s.Flush().ok());
  REQUIRE(s.DeleteLedger(1).ok());  // 25% dead: usage 0.75
  auto r = s.RunGc(nullptr, 0.2);
  REQUIRE(r.ok());
  CHECK(r->compacted_logs == 0);
  CHECK(r->removed_logs == 0);
}

}  // namespace
}  // namespace bk::bookie
