// The store over the real journal: a deleted ledger's tombstone is purged
// only once the journal checkpoint passed its records, so a restart's replay
// never brings the ledger back.

#include <catch2/catch.hpp>
#include <future>

#include "bookie/engine/bookie_store_impl.h"
#include "proto/status_codes.h"
#include "test/support/clock_env.h"
#include "test/unit/bookie/store_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::ClockEnv;
using testing::Add;
using testing::OptionsIn;
using testing::PayloadOf;

constexpr absl::Duration kRetention = absl::Hours(1);

StoreOptions PurgeOptions(const bk::testing::TempDir& dir) {
  StoreOptions o = OptionsIn(dir);
  o.storage.background_flush = false;  // the test says when to flush
  o.storage.deleted_ledger_retention = kRetention;
  return o;
}

std::unique_ptr<BookieStoreImpl> OpenStore(Env* env, const StoreOptions& o,
                                           StartupReport* report = nullptr) {
  auto s = BookieStoreImpl::Open(env, o, report);
  REQUIRE(s.ok());
  return std::move(*s);
}

uint64_t Purge(BookieStoreImpl* store) {
  auto r = store->storage()->RunGc(nullptr, 0.0);
  REQUIRE(r.ok());
  return r->purged_ledgers;
}

std::string Payload(uint64_t ledger, int64_t entry) {
  return "l" + std::to_string(ledger) + "e" + std::to_string(entry);
}

TEST_CASE(
    "a deleted ledger does not come back from journal replay, before or "
    "after its tombstone is purged",
    "[bookie][store][purge]") {
  bk::testing::TempDir dir;
  ClockEnv env(Env::Default());
  const StoreOptions options = PurgeOptions(dir);
  auto store = OpenStore(&env, options);
  // Acknowledged, so journaled; not flushed.
  for (int64_t e = 0; e < 5; ++e) {
    REQUIRE(Add(store.get(), 9, e, e - 1, Payload(9, e)).ok());
    REQUIRE(Add(store.get(), 10, e, e - 1, Payload(10, e)).ok());
  }
  REQUIRE(store->DeleteLedger(9).ok());
  // Its records are still in the journal after the checkpoint.
  env.Advance(2 * kRetention);
  CHECK(Purge(store.get()) == 0);
  CHECK(absl::IsNotFound(Add(store.get(), 9, 5, 4, Payload(9, 5))));

  SECTION("a restart before the purge replays nothing of it") {
    store.reset();  // a crash: nothing more is flushed
    StartupReport report;
    store = OpenStore(&env, options, &report);
    CHECK(report.replayed_entries >= 10);
    CHECK(absl::IsNotFound(Add(store.get(), 9, 5, 4, Payload(9, 5))));
  }
  SECTION("a restart after the purge replays nothing of it") {
    REQUIRE(store->storage()->Flush().ok());  // checkpoint past ledger 9
    CHECK(Purge(store.get()) == 1);
    // Journaled after the checkpoint: replayed.
    REQUIRE(Add(store.get(), 10, 5, 4, Payload(10, 5)).ok());
    store.reset();  // a crash: nothing more is flushed
    StartupReport report;
    store = OpenStore(&env, options, &report);
    CHECK(report.replayed_entries >= 1);
    CHECK(report.replayed_entries < 10);
    CHECK(store->storage()->GetStats().ledger_tombstones == 0);
    CHECK_FALSE(store->storage()->LedgerExists(9));
    CHECK(ToWire(store->ListEntries(9, 0, 10).status()) == proto::BK_ENOLEDGER);
  }
  for (int64_t e = 0; e < 5; ++e) {
    CHECK(ToWire(store->ReadEntry(9, e).status()) == proto::BK_ENOLEDGER);
  }
  for (int64_t e = 0; e < 5; ++e) {
    auto got = store->ReadEntry(10, e);
    REQUIRE(got.ok());
    CHECK(PayloadOf(*got) == Payload(10, e));
  }
}

TEST_CASE(
    "a ledger GC deletes on the filter's word is no longer live, refuses "
    "late adds until purged, answers its long polls, and leaves the ledger "
    "state table when purged",
    "[bookie][store][purge]") {
  bk::testing::TempDir dir;
  ClockEnv env(Env::Default());
  auto store = OpenStore(&env, PurgeOptions(dir));
  for (int64_t e = 0; e < 3; ++e) {
    REQUIRE(Add(store.get(), 9, e, e - 1, Payload(9, e)).ok());
    REQUIRE(Add(store.get(), 10, e, e - 1, Payload(10, e)).ok());
  }
  REQUIRE(store->storage()->LedgerExists(9));
  REQUIRE(store->storage()->LedgerExists(10));
  auto poll = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto polled = poll->get_future();
  store->WaitForLacUpdate(
      9, 5, absl::Hours(1),
      [poll](absl::StatusOr<int64_t> r) { poll->set_value(std::move(r)); });

  auto r = store->storage()->RunGc([](uint64_t id) { return id == 9; }, 0.0);
  REQUIRE(r.ok());
  CHECK(r->deleted_ledgers == 1);
  CHECK_FALSE(store->storage()->LedgerExists(9));
  CHECK(store->storage()->FindLedger(9) != nullptr);  // its tombstone
  REQUIRE(polled.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  CHECK(ToWire(polled.get().status()) == proto::BK_ENOLEDGER);

  // During the retention a late add is refused, with any key.
  CHECK(ToWire(Add(store.get(), 9, 3, 2, Payload(9, 3))) ==
        proto::BK_ENOLEDGER);
  CHECK(ToWire(Add(store.get(), 9, 3, 2, Payload(9, 3), "other")) ==
        proto::BK_ENOLEDGER);
  CHECK(ToWire(store->ReadEntry(9, 0).status()) == proto::BK_ENOLEDGER);

  // The purge forgets it for good (the late adds did not bring it back).
  REQUIRE(store->storage()->Flush().ok());
  env.Advance(2 * kRetention);
  CHECK(Purge(store.get()) == 1);
  CHECK(store->storage()->FindLedger(9) == nullptr);
  CHECK(store->storage()->LedgerExists(10));
  for (int64_t e = 0; e < 3; ++e) {
    auto got = store->ReadEntry(10, e);
    REQUIRE(got.ok());
    CHECK(PayloadOf(*got) == Payload(10, e));
  }
}

}  // namespace
}  // namespace bk::bookie
