// LedgerStorage: add and read paths, read-ahead, ledger state, several
// directories, checkpoints.

#include <catch2/catch.hpp>

#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::IsEntry;
using testing::MakeEntry;
using testing::OpenOrDie;
using testing::SmallOptions;

// Changes a ledger's state the way its owner does: under the slot's lock,
// recorded for the next flush.
template <typename Fn>
void Change(LedgerStorage* storage, uint64_t ledger_id, Fn fn) {
  auto slot = storage->FindOrCreateLedger(ledger_id);
  REQUIRE(slot.ok());
  absl::MutexLock l(&(*slot)->mu);
  fn(&(*slot)->state);
  storage->LedgerStateChanged(**slot);
}

LedgerState StateOf(LedgerStorage* storage, uint64_t ledger_id) {
  std::shared_ptr<LedgerSlot> slot = storage->FindLedger(ledger_id);
  REQUIRE(slot != nullptr);
  absl::MutexLock l(&slot->mu);
  return slot->state;
}

TEST_CASE(
    "entries are readable from the write cache and, after a flush, "
    "from the entry log",
    "[storage]") {
  TempDir dir;
  auto storage = OpenOrDie(SmallOptions(dir.path()));
  for (int64_t e = 0; e < 20; ++e) {
    REQUIRE(storage->AddEntry(5, e, MakeEntry(5, e)).ok());
  }
  auto got = storage->GetEntry(5, 3);
  REQUIRE(got.ok());
  CHECK(IsEntry(*got, 5, 3));
  CHECK(storage->GetStats().write_cache_hits == 1);

  REQUIRE(storage->Flush().ok());
  CHECK(storage->GetStats().write_cache_entries == 0);
  got = storage->GetEntry(5, 7);
  REQUIRE(got.ok());
  CHECK(IsEntry(*got, 5, 7));
  CHECK(storage->GetStats().read_cache_misses == 1);
  CHECK(absl::IsNotFound(storage->GetEntry(5, 20).status()));
  CHECK(absl::IsNotFound(storage->GetEntry(6, 0).status()));
}

TEST_CASE("last entry and the list of entries cover cache and index",
          "[storage]") {
  TempDir dir;
  auto storage = OpenOrDie(SmallOptions(dir.path()));
  for (int64_t e : {0, 1, 2, 5}) {
    REQUIRE(storage->AddEntry(9, e, MakeEntry(9, e, 50, e - 1)).ok());
  }
  REQUIRE(storage->Flush().ok());
  REQUIRE(storage->AddEntry(9, 7, MakeEntry(9, 7, 50, 5)).ok());
  CHECK(*storage->GetLastEntryId(9) == 7);
  auto last = storage->GetEntry(9, LedgerStorage::kLastEntry);
  REQUIRE(last.ok());
  CHECK(IsEntry(*last, 9, 7, 50) == false);  // lac differs from MakeEntry's
  CHECK(*storage->GetLastAddConfirmed(9) == 5);
  CHECK(*storage->GetListOfEntriesOfLedger(9) ==
        std::vector<int64_t>{0, 1, 2, 5, 7});
  CHECK(*storage->GetLastEntryId(10) == -1);
}

TEST_CASE("a read that misses reads ahead so the next entries hit the cache",
          "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.path());
  options.read_ahead_batch_size = 10;
  auto storage = OpenOrDie(options);
  for (int64_t e = 0; e < 30; ++e) {
    REQUIRE(storage->AddEntry(2, e, MakeEntry(2, e, 500)).ok());
    REQUIRE(storage->AddEntry(3, e, MakeEntry(3, e, 500)).ok());
  }
  REQUIRE(storage->Flush().ok());
  for (int64_t e = 0; e < 30; ++e) {
    auto got = storage->GetEntry(2, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 2, e, 500));
  }
  const StorageStats s = storage->GetStats();
  CHECK(s.read_cache_misses == 3);  // entries 0, 10, 20
  CHECK(s.read_cache_hits == 27);
  CHECK(s.read_ahead_entries == 27);
  CHECK(s.read_cache_hit_ratio() == Approx(0.9));
}

TEST_CASE(
    "read-ahead goes on past the entries a striped ledger left to other "
    "bookies, and stops at another ledger",
    "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.path());
  options.read_ahead_batch_size = 12;
  auto storage = OpenOrDie(options);
  // E3/WQ2: entry e goes to bookies e mod 3 and e + 1 mod 3, so bookie 0
  // holds the entries e with e mod 3 in {0, 2}: 0, 2, 3, 5, 6, ...
  std::vector<int64_t> held;
  for (int64_t e = 0; e < 45; ++e) {
    if (e % 3 == 1) continue;
    held.push_back(e);
    REQUIRE(storage->AddEntry(4, e, MakeEntry(4, e, 500)).ok());
    REQUIRE(storage->AddEntry(8, e, MakeEntry(8, e, 500)).ok());
  }
  REQUIRE(storage->Flush().ok());
  for (int64_t e : held) {
    auto got = storage->GetEntry(4, e);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 4, e, 500));
  }
  // 30 entries in batches of 12: the first of each batch misses; the last
  // batch reads 5 ahead and stops at ledger 8's first record.
  StorageStats s = storage->GetStats();
  CHECK(s.read_cache_misses == 3);
  CHECK(s.read_ahead_entries == 11 + 11 + 5);
  // Ledger 8's records follow ledger 4's in the log; none was read ahead.
  REQUIRE(storage->GetEntry(8, 0).ok());
  CHECK(storage->GetStats().read_cache_misses == 4);
}

TEST_CASE(
    "ledger state changes (fenced, master key, explicit LAC) reach the "
    "index with the next flush and persist across reopen, unflushed ones "
    "do not",
    "[storage]") {
  TempDir dir;
  {
    auto storage = OpenOrDie(SmallOptions(dir.path()));
    const StorageStats before = storage->GetStats();
    Change(storage.get(), 4, [](LedgerState* st) {
      st->has_master_key = true;
      st->master_key = "secret";
      st->fenced = true;
      st->has_explicit_lac = true;
      st->explicit_lac = "lac-bytes";
    });
    REQUIRE(storage->AddEntry(4, 0, MakeEntry(4, 0)).ok());
    // Recorded only: the index is written by the flush.
    CHECK(storage->GetStats().index_writes == before.index_writes);
    REQUIRE(storage->Flush().ok());
    CHECK(storage->GetStats().index_synced_writes ==
          before.index_synced_writes + 1);
    // Never flushed: gone at reopen (the journal holds such changes).
    Change(storage.get(), 5, [](LedgerState* st) { st->fenced = true; });
    Change(storage.get(), 4, [](LedgerState* st) { st->fenced = false; });
  }
  auto storage = OpenOrDie(SmallOptions(dir.path()));
  CHECK(storage->LedgerExists(4));
  const LedgerState st = StateOf(storage.get(), 4);
  CHECK(st.fenced);
  CHECK(st.has_master_key);
  CHECK(st.master_key == "secret");
  CHECK(st.explicit_lac == "lac-bytes");
  CHECK(IsEntry(*storage->GetEntry(4, 0), 4, 0));
  CHECK_FALSE(storage->LedgerExists(5));
}

TEST_CASE("a deleted ledger's entries are gone, before and after reopen",
          "[storage]") {
  TempDir dir;
  {
    auto storage = OpenOrDie(SmallOptions(dir.path()));
    for (int64_t e = 0; e < 10; ++e) {
      REQUIRE(storage->AddEntry(1, e, MakeEntry(1, e)).ok());
      REQUIRE(storage->AddEntry(2, e, MakeEntry(2, e)).ok());
    }
    REQUIRE(storage->Flush().ok());
    REQUIRE(storage->GetEntry(1, 0).ok());  // now in the read cache too
    REQUIRE(storage->AddEntry(1, 10, MakeEntry(1, 10)).ok());  // cached only
    REQUIRE(storage->DeleteLedger(1).ok());
    CHECK(absl::IsNotFound(storage->GetEntry(1, 0).status()));
    CHECK(absl::IsNotFound(storage->GetEntry(1, 10).status()));
    CHECK_FALSE(storage->LedgerExists(1));
    CHECK(absl::IsNotFound(storage->AddEntry(1, 11, MakeEntry(1, 11))));
    REQUIRE(storage->Flush().ok());
  }
  auto storage = OpenOrDie(SmallOptions(dir.path()));
  for (int64_t e = 0; e <= 10; ++e) {
    CHECK(absl::IsNotFound(storage->GetEntry(1, e).status()));
    CHECK(IsEntry(*storage->GetEntry(2, e % 10), 2, e % 10));
  }
}

TEST_CASE("ledgers are spread over several ledger directories", "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.Sub("d0"));
  options.ledger_dirs = {dir.Sub("d0"), dir.Sub("d1"), dir.Sub("d2")};
  {
    auto storage = OpenOrDie(options);
    for (uint64_t l = 0; l < 6; ++l) {
      for (int64_t e = 0; e < 5; ++e) {
        REQUIRE(storage->AddEntry(l, e, MakeEntry(l, e)).ok());
      }
    }
    REQUIRE(storage->Flush().ok());
  }
  for (const std::string& d : options.ledger_dirs) {
    auto children = Env::Default()->GetChildren(d);
    REQUIRE(children.ok());
    int logs = 0;
    for (const auto& c : *children) logs += absl::EndsWith(c, ".log");
    CHECK(logs == 1);
  }
  auto storage = OpenOrDie(options);
  for (uint64_t l = 0; l < 6; ++l) {
    for (int64_t e = 0; e < 5; ++e) {
      auto got = storage->GetEntry(l, e);
      REQUIRE(got.ok());
      CHECK(IsEntry(*got, l, e));
    }
  }
}

TEST_CASE(
    "a new ledger skips a ledger directory marked full, an existing one "
    "stays in its own, and both are found there after reopening",
    "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.Sub("d0"));
  options.ledger_dirs = {dir.Sub("d0"), dir.Sub("d1")};
  auto logs_in = [&](int d) {
    auto children = Env::Default()->GetChildren(options.ledger_dirs[d]);
    REQUIRE(children.ok());
    int logs = 0;
    for (const auto& c : *children) logs += absl::EndsWith(c, ".log");
    return logs;
  };
  {
    auto storage = OpenOrDie(options);
    // An entry log is made by the first flush with entries for it.
    REQUIRE(logs_in(0) == 0);
    REQUIRE(logs_in(1) == 0);
    // Ledger 2's home is d0 (2 % 2); it exists before d0 fills up.
    REQUIRE(storage->AddEntry(2, 0, MakeEntry(2, 0)).ok());
    storage->SetDirFull(0, true);
    REQUIRE(storage->AddEntry(2, 1, MakeEntry(2, 1)).ok());  // stays in d0
    // Ledgers 4 and 6 are new: their home d0 is full, so they go to d1.
    for (uint64_t l : {4, 6}) {
      bool created = false;
      auto slot = storage->FindOrCreateLedger(l, &created);
      REQUIRE(slot.ok());
      CHECK(created);
      REQUIRE(storage->AddEntry(l, 0, MakeEntry(l, 0)).ok());
    }
    REQUIRE(storage->Flush().ok());
    CHECK(logs_in(0) == 1);  // ledger 2 only
    CHECK(logs_in(1) == 1);  // ledgers 4 and 6
    // Every directory full: a new ledger goes home again.
    storage->SetDirFull(1, true);
    REQUIRE(storage->AddEntry(8, 0, MakeEntry(8, 0)).ok());
    storage->SetDirFull(0, false);
    storage->SetDirFull(1, false);
    REQUIRE(storage->Flush().ok());
  }
  // Reopened (no directory marked full): each ledger is found where it is.
  auto storage = OpenOrDie(options);
  for (uint64_t l : {2, 4, 6, 8}) {
    const int64_t last = l == 2 ? 1 : 0;
    for (int64_t e = 0; e <= last; ++e) {
      auto got = storage->GetEntry(l, e);
      INFO("ledger " << l << " entry " << e);
      REQUIRE(got.ok());
      CHECK(IsEntry(*got, l, e));
    }
  }
  // And adds to ledger 4 still go to d1: its entries stay together.
  REQUIRE(storage->AddEntry(4, 1, MakeEntry(4, 1)).ok());
  auto ids = storage->GetListOfEntriesOfLedger(4);
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<int64_t>{0, 1});
}

TEST_CASE("entry logs roll at the size limit and all stay readable",
          "[storage]") {
  TempDir dir;
  auto options = SmallOptions(dir.path());
  options.entry_log_size_limit = 8 << 10;
  auto storage = OpenOrDie(options);
  for (int64_t e = 0; e < 40; ++e) {
    REQUIRE(storage->AddEntry(1, e, MakeEntry(1, e, 1000)).ok());
    if (e % 7 == 0) REQUIRE(storage->Flush().ok());
  }
  REQUIRE(storage->Flush().ok());
  auto children = Env::Default()->GetChildren(dir.path());
  int logs = 0;
  for (const auto& c : *children) logs += absl::EndsWith(c, ".log");
  CHECK(logs >= 5);
  for (int64_t e = 0; e < 40; ++e) {
    CHECK(IsEntry(*storage->GetEntry(1, e), 1, e, 1000));
  }
}

TEST_CASE("a flush reports the checkpoint mark taken before it", "[storage]") {
  TempDir dir;
  auto storage = OpenOrDie(SmallOptions(dir.path()));
  uint64_t next_mark = 10;
  std::vector<uint64_t> flushed;
  storage->SetCheckpointHooks({[&] { return next_mark++; },
                               [&](uint64_t m) {
                                 flushed.push_back(m);
                                 return absl::OkStatus();
                               }});
  REQUIRE(storage->AddEntry(1, 0, MakeEntry(1, 0)).ok());
  REQUIRE(storage->Flush().ok());
  REQUIRE(storage->Flush().ok());
  CHECK(flushed == std::vector<uint64_t>{10, 11});
}

}  // namespace
}  // namespace bk::bookie
