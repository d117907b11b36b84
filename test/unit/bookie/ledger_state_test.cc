// Ledger state through the store: fence and master key are journaled
// through group commit (no index write on the add path), survive a crash
// from the journal alone and, once flushed, from the index alone; a fence
// is never reported to a writer before it is durable; a wrong master key
// is refused by the one check that remains.

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bookie/engine/bookie_store_impl.h"
#include "common/fault_env.h"
#include "common/sync_gate.h"
#include "proto/status_codes.h"
#include "test/unit/bookie/store_test_util.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using testing::Add;
using testing::Await;
using testing::OptionsIn;

// The test says when the storage flushes.
StoreOptions Options(const bk::testing::TempDir& dir) {
  StoreOptions o = OptionsIn(dir);
  o.storage.background_flush = false;
  return o;
}

std::unique_ptr<BookieStoreImpl> OpenStore(Env* env, const StoreOptions& o,
                                           StartupReport* report = nullptr) {
  auto s = BookieStoreImpl::Open(env, o, report);
  REQUIRE(s.ok());
  return std::move(*s);
}

absl::Status FenceOf(BookieStore* store, uint64_t ledger,
                     const std::string& key = "key") {
  return Await(
      [&](StatusCallback cb) { store->Fence(ledger, key, std::move(cb)); });
}

// The ledger's state as the index alone holds it (no journal replay): the
// storage opened by itself. nullopt when the index does not know it.
std::optional<LedgerState> IndexedState(Env* env, const StoreOptions& o,
                                        uint64_t ledger) {
  auto storage = LedgerStorage::Open(env, o.storage);
  REQUIRE(storage.ok());
  std::shared_ptr<LedgerSlot> slot = (*storage)->FindLedger(ledger);
  if (slot == nullptr) return std::nullopt;
  absl::MutexLock l(&slot->mu);
  return slot->state;
}

TEST_CASE(
    "a ledger's first add, its fence and its explicit LAC make no index "
    "write, the journal syncs them and the next flush writes them",
    "[bookie][store][ledgerstate]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto store = OpenStore(&env, Options(dir));
  const StorageStats before = store->storage_stats();
  const int64_t journal_syncs = env.sync_count();

  REQUIRE(Add(store.get(), 30, 0, -1, "first", "key").ok());
  CHECK(env.sync_count() > journal_syncs);
  REQUIRE(FenceOf(store.get(), 31).ok());  // a ledger never seen: made fenced
  REQUIRE(Await([&](StatusCallback cb) {
            store->WriteLac(32, 4, "key", std::move(cb));
          }).ok());
  StorageStats after = store->storage_stats();
  CHECK(after.index_synced_writes == before.index_synced_writes);
  CHECK(after.index_writes == before.index_writes);

  // The probe does see index writes: the flush makes exactly one, synced.
  REQUIRE(store->storage()->Flush().ok());
  after = store->storage_stats();
  CHECK(after.index_synced_writes == before.index_synced_writes + 1);
  CHECK(after.index_writes == before.index_writes + 1);
}

TEST_CASE("a fence only the journal holds survives a crash: replay restores it",
          "[bookie][store][ledgerstate]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  const StoreOptions o = Options(dir);
  {
    auto store = OpenStore(&env, o);
    REQUIRE(Add(store.get(), 21, 0, -1, "a").ok());
    const StorageStats before = store->storage_stats();
    REQUIRE(FenceOf(store.get(), 21).ok());
    // Acknowledged, so journaled and synced; not in the index.
    CHECK(store->storage_stats().index_writes == before.index_writes);
    REQUIRE(env.PowerCut().ok());
  }  // a crash: nothing flushed
  env.Restart();
  // The index alone does not know of the fence (nor of the ledger).
  const std::optional<LedgerState> indexed = IndexedState(&env, o, 21);
  CHECK((!indexed.has_value() || !indexed->fenced));

  auto store = OpenStore(&env, o);
  CHECK(ToWire(Add(store.get(), 21, 1, 0, "b")) == proto::BK_EFENCED);
  CHECK(Add(store.get(), 21, 1, 0, "b", "key", /*recovery=*/true).ok());
  // The start's flush wrote it to the index.
  store.reset();
  const std::optional<LedgerState> flushed = IndexedState(&env, o, 21);
  REQUIRE(flushed.has_value());
  CHECK(flushed->fenced);
}

TEST_CASE(
    "a fence the checkpoint has passed survives a crash from the index "
    "alone",
    "[bookie][store][ledgerstate]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  const StoreOptions o = Options(dir);
  {
    auto store = OpenStore(&env, o);
    REQUIRE(Add(store.get(), 22, 0, -1, "a").ok());
    REQUIRE(FenceOf(store.get(), 22).ok());
    // The checkpoint moves past the fence record.
    REQUIRE(store->storage()->Flush().ok());
    REQUIRE(env.PowerCut().ok());
  }
  env.Restart();
  const std::optional<LedgerState> indexed = IndexedState(&env, o, 22);
  REQUIRE(indexed.has_value());
  CHECK(indexed->fenced);
  StartupReport report;
  auto store = OpenStore(&env, o, &report);
  CHECK(report.journal.records == 0);  // nothing replayed: the index held it
  CHECK(ToWire(Add(store.get(), 22, 1, 0, "b")) == proto::BK_EFENCED);
}

TEST_CASE(
    "an add that meets a fence whose record is not synced yet hears "
    "EFENCED only after the fence is durable",
    "[bookie][store][ledgerstate]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  SyncGate gate;
  env.SetSyncGate(&gate, ".jnl");  // the journal's syncs
  auto store = OpenStore(&env, Options(dir));
  OpenGateOnExit open_on_exit(&gate);
  REQUIRE(Add(store.get(), 23, 0, -1, "a").ok());

  absl::Mutex mu;
  std::vector<std::string> answers;  // in the order they came
  auto answered = [&](const std::string& what) {
    absl::MutexLock l(&mu);
    answers.push_back(what);
  };
  gate.Hold();
  store->Fence(23, "key", [&](absl::Status s) {
    answered(absl::StrCat("fence ", s.ToString()));
  });
  // The fence record waits for its sync.
  REQUIRE(gate.AwaitSyncs(1));
  AddArgs a;
  a.ledger_id = 23;
  a.entry_id = 1;
  a.master_key = "key";
  store->AddEntry(a, testing::Entry(23, 1, 0, "b"), [&](absl::Status s) {
    answered(absl::StrCat("add ", WireCodeName(ToWire(s))));
  });
  {
    absl::MutexLock l(&mu);
    CHECK(answers.empty());  // neither may be answered before the sync
  }
  gate.Open();
  {
    absl::MutexLock l(&mu);
    auto both = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return answers.size() == 2;
    };
    REQUIRE(mu.AwaitWithTimeout(absl::Condition(&both), absl::Seconds(30)));
    CHECK(answers[0] == "fence OK");
    CHECK(answers[1] == "add EFENCED");
  }
  // From now on the refusal is immediate.
  CHECK(ToWire(Add(store.get(), 23, 2, 0, "c")) == proto::BK_EFENCED);
}

TEST_CASE(
    "a wrong master key is refused with EUA by every request, from the "
    "journal after a crash and from the index after a restart",
    "[bookie][store][ledgerstate]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  const StoreOptions o = Options(dir);
  // EUA, and the key is never echoed.
  auto refused = [](const absl::Status& s) {
    return ToWire(s) == proto::BK_EUA &&
           std::string(s.message()).find("wrong") == std::string::npos;
  };
  auto every_request = [&](BookieStoreImpl* store, int64_t next) {
    CHECK(refused(Add(store, 24, next, next - 1, "x", "wrong")));
    CHECK(refused(Add(store, 24, next, next - 1, "x", "wrong", true)));
    CHECK(refused(FenceOf(store, 24, "wrong")));
    CHECK(refused(Await([&](StatusCallback cb) {
      store->WriteLac(24, 0, "wrong", std::move(cb));
    })));
    CHECK(refused(Await([&](StatusCallback cb) {
      store->ForceLedger(24, "wrong", std::move(cb));
    })));
    CHECK(Add(store, 24, next, next - 1, "x", "right").ok());
  };
  {
    auto store = OpenStore(&env, o);
    // An empty key never makes a ledger.
    CHECK(ToWire(Add(store.get(), 24, 0, -1, "x", "")) == proto::BK_EBADREQ);
    CHECK(ToWire(store->ReadEntry(24, 0).status()) == proto::BK_ENOLEDGER);
    REQUIRE(Add(store.get(), 24, 0, -1, "a", "right").ok());
    every_request(store.get(), 1);
    REQUIRE(env.PowerCut().ok());
  }  // a crash: the key is only in the journal
  env.Restart();
  {
    auto store = OpenStore(&env, o);
    every_request(store.get(), 2);
    REQUIRE(store->Close().ok());
  }
  // A clean restart: the index holds the key, the journal nothing more.
  StartupReport report;
  auto store = OpenStore(&env, o, &report);
  CHECK(report.journal.records == 0);
  every_request(store.get(), 3);
}

}  // namespace
}  // namespace bk::bookie
