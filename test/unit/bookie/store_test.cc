#include <errno.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bookie/engine/bookie_store_impl.h"
#include "proto/status_codes.h"
#include "test/unit/bookie/store_test_util.h"

namespace bk::bookie {
namespace {

using testing::Add;
using testing::Await;
using testing::OptionsIn;
using testing::PayloadOf;

std::unique_ptr<BookieStoreImpl> OpenStore(Env* env,
                                           const bk::testing::TempDir& dir) {
  auto s = BookieStoreImpl::Open(env, OptionsIn(dir));
  REQUIRE(s.ok());
  return std::move(*s);
}

TEST_CASE("an added entry is acknowledged after its sync and reads back",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto store = OpenStore(&env, dir);
  const int64_t syncs_before = env.sync_count();
  REQUIRE(Add(store.get(), 1, 0, -1, "first").ok());
  CHECK(env.sync_count() > syncs_before);
  REQUIRE(Add(store.get(), 1, 1, 0, "second").ok());
  auto e = store->ReadEntry(1, 1);
  REQUIRE(e.ok());
  CHECK(PayloadOf(*e) == "second");
  auto last = store->ReadEntry(1, -1);
  REQUIRE(last.ok());
  CHECK(PayloadOf(*last) == "second");
  CHECK(*store->LastAddConfirmed(1) == 0);
  CHECK(*store->ListEntries(1, 0, 100) == std::vector<int64_t>{0, 1});
  CHECK(*store->ListEntries(1, 1, 100) == std::vector<int64_t>{1});
  CHECK(*store->ListEntries(1, 0, 1) == std::vector<int64_t>{0});
}

TEST_CASE(
    "a batch add answers refusals at once and the rest in one call after "
    "their sync, each add exactly once",
    "[bookie][store]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto store = OpenStore(&env, dir);
  REQUIRE(Add(store.get(), 6, 0, -1, "zero", "key").ok());
  const int64_t syncs_before = env.sync_count();
  std::vector<AddEntryRequest> adds(4);
  for (int i = 0; i < 4; ++i) {
    adds[i].args.ledger_id = 6;
    adds[i].args.entry_id = i + 1;
    adds[i].args.master_key = i == 2 ? "other" : "key";  // the third: EUA
    adds[i].body = testing::Entry(6, i + 1, i, absl::StrCat("e", i + 1));
  }
  absl::Mutex mu;
  std::vector<std::vector<AddOutcome>> calls;
  std::promise<void> all;
  store->AddEntries(absl::MakeSpan(adds),
                    [&](absl::Span<const AddOutcome> out) {
                      absl::MutexLock l(&mu);
                      calls.emplace_back(out.begin(), out.end());
                      size_t n = 0;
                      for (const auto& c : calls) n += c.size();
                      if (n == 4) all.set_value();
                    });
  auto f = all.get_future();
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  absl::MutexLock l(&mu);
  REQUIRE(calls.size() == 2);
  REQUIRE(calls[0].size() == 1);  // the refusal, at once
  CHECK(calls[0][0].entry_id == 3);
  CHECK(ToWire(calls[0][0].status) == proto::BK_EUA);
  REQUIRE(calls[1].size() == 3);  // the journal group, after its sync
  CHECK(env.sync_count() > syncs_before);
  const int64_t ids[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    CHECK(calls[1][i].ledger_id == 6u);
    CHECK(calls[1][i].entry_id == ids[i]);
    CHECK(calls[1][i].status.ok());
  }
  CHECK(PayloadOf(*store->ReadEntry(6, 4)) == "e4");
  CHECK(ToWire(store->ReadEntry(6, 3).status()) == proto::BK_ENOENTRY);
  CHECK(*store->LastAddConfirmed(6) == 3);  // entry 4 carries LAC 3
}

TEST_CASE("reads tell a missing ledger from a missing entry",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  CHECK(ToWire(store->ReadEntry(9, 0).status()) == proto::BK_ENOLEDGER);
  REQUIRE(Add(store.get(), 9, 0, -1, "x").ok());
  CHECK(ToWire(store->ReadEntry(9, 5).status()) == proto::BK_ENOENTRY);
}

TEST_CASE("a wrong master key is refused with EUA", "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 2, 0, -1, "a", "right").ok());
  absl::Status s = Add(store.get(), 2, 1, 0, "b", "wrong");
  CHECK(ToWire(s) == proto::BK_EUA);
  CHECK(std::string(s.message()).find("wrong") == std::string::npos);
}

TEST_CASE("an entry whose header names another entry is refused",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  AddArgs a;
  a.ledger_id = 3;
  a.entry_id = 7;
  a.master_key = "k";
  absl::Status s = Await([&](StatusCallback cb) {
    store->AddEntry(a, testing::Entry(3, 8, 7, "x"), std::move(cb));
  });
  CHECK(ToWire(s) == proto::BK_EBADREQ);
}

TEST_CASE("fencing refuses plain adds and accepts recovery adds",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 4, 0, -1, "a").ok());
  REQUIRE(Await([&](StatusCallback cb) {
            store->Fence(4, "key", std::move(cb));
          }).ok());
  CHECK(ToWire(Add(store.get(), 4, 1, 0, "b")) == proto::BK_EFENCED);
  CHECK(Add(store.get(), 4, 1, 0, "b", "key", /*recovery=*/true).ok());
  // Fencing with the wrong key is refused.
  CHECK(ToWire(Await([&](StatusCallback cb) {
          store->Fence(4, "nope", std::move(cb));
        })) == proto::BK_EUA);
}

TEST_CASE("fencing a ledger the bookie never saw creates it fenced",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Await([&](StatusCallback cb) {
            store->Fence(5, "key", std::move(cb));
          }).ok());
  CHECK(ToWire(store->ReadEntry(5, -1).status()) == proto::BK_ENOENTRY);
  CHECK(ToWire(Add(store.get(), 5, 0, -1, "late")) == proto::BK_EFENCED);
}

TEST_CASE("the fence survives a restart", "[bookie][store]") {
  bk::testing::TempDir dir;
  {
    auto store = OpenStore(Env::Default(), dir);
    REQUIRE(Add(store.get(), 6, 0, -1, "a").ok());
    REQUIRE(Await([&](StatusCallback cb) {
              store->Fence(6, "key", std::move(cb));
            }).ok());
  }
  auto store = OpenStore(Env::Default(), dir);
  CHECK(ToWire(Add(store.get(), 6, 1, 0, "b")) == proto::BK_EFENCED);
}

TEST_CASE("acknowledged entries survive a crash before any flush",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  {
    auto store = OpenStore(&env, dir);
    for (int e = 0; e < 50; ++e) {
      REQUIRE(
          Add(store.get(), 7, e, e - 1, "payload-" + std::to_string(e)).ok());
    }
    // Power cut: unsynced bytes vanish; the store is abandoned unflushed.
    REQUIRE(env.PowerCut().ok());
  }
  env.Restart();
  StartupReport report;
  auto store = BookieStoreImpl::Open(&env, OptionsIn(dir), &report);
  REQUIRE(store.ok());
  CHECK(report.replayed_entries >= 50);
  for (int e = 0; e < 50; ++e) {
    auto got = (*store)->ReadEntry(7, e);
    REQUIRE(got.ok());
    CHECK(PayloadOf(*got) == "payload-" + std::to_string(e));
  }
  CHECK(*(*store)->LastAddConfirmed(7) == 48);
}

TEST_CASE("a long poll answers when the LAC passes the previous one",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 8, 0, -1, "a").ok());
  auto p = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto f = p->get_future();
  store->WaitForLacUpdate(
      8, -1, absl::Seconds(30),
      [p](absl::StatusOr<int64_t> lac) { p->set_value(lac); });
  CHECK(f.wait_for(std::chrono::milliseconds(0)) ==
        std::future_status::timeout);
  REQUIRE(Add(store.get(), 8, 1, 0, "b").ok());  // carries LAC 0
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(*f.get() == 0);
}

TEST_CASE("a long poll times out with the unchanged LAC", "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 9, 0, -1, "a").ok());
  auto p = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto f = p->get_future();
  store->WaitForLacUpdate(
      9, -1, absl::Milliseconds(50),
      [p](absl::StatusOr<int64_t> lac) { p->set_value(lac); });
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(*f.get() == -1);
}

TEST_CASE("close answers every pending long poll", "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 10, 0, -1, "a").ok());
  auto p = std::make_shared<std::promise<absl::StatusOr<int64_t>>>();
  auto f = p->get_future();
  store->WaitForLacUpdate(
      10, 5, absl::Hours(1),
      [p](absl::StatusOr<int64_t> lac) { p->set_value(lac); });
  REQUIRE(store->Close().ok());
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
}

TEST_CASE("read-only refuses adds with EREADONLY and still serves reads",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  auto store = OpenStore(Env::Default(), dir);
  REQUIRE(Add(store.get(), 11, 0, -1, "a").ok());
  store->SetReadOnly(true, "disk full");
  absl::Status s = Add(store.get(), 11, 1, 0, "b");
  CHECK(ToWire(s) == proto::BK_EREADONLY);
  CHECK(std::string(s.message()).find("disk full") != std::string::npos);
  CHECK(store->ReadEntry(11, 0).ok());
  CHECK_FALSE(store->Stats().writable);
  store->SetReadOnly(false, "");
  CHECK(Add(store.get(), 11, 1, 0, "b").ok());
}

TEST_CASE("a failed journal fsync fails that add and every later one",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  FaultInjectionEnv env(Env::Default());
  auto store = OpenStore(&env, dir);
  REQUIRE(Add(store.get(), 12, 0, -1, "a").ok());
  env.FailNth(FaultInjectionEnv::Op::kSync, 1, EIO, "journal");
  CHECK_FALSE(Add(store.get(), 12, 1, 0, "b").ok());
  for (int e = 2; e < 5; ++e) {
    CHECK(ToWire(Add(store.get(), 12, e, 0, "c")) == proto::BK_EIO);
  }
  StoreStats st = store->Stats();
  CHECK_FALSE(st.writable);
  CHECK(st.unwritable_reason.find("journal") != std::string::npos);
}

TEST_CASE("explicit LAC and force ledger complete and persist",
          "[bookie][store]") {
  bk::testing::TempDir dir;
  {
    auto store = OpenStore(Env::Default(), dir);
    REQUIRE(Add(store.get(), 13, 0, -1, "a").ok());
    REQUIRE(Await([&](StatusCallback cb) {
              store->WriteLac(13, 0, "key", std::move(cb));
            }).ok());
    REQUIRE(Await([&](StatusCallback cb) {
              store->ForceLedger(13, "key", std::move(cb));
            }).ok());
    CHECK(*store->ExplicitLac(13) == 0);
    REQUIRE(store->Close().ok());
  }
  auto store = OpenStore(Env::Default(), dir);
  CHECK(*store->ExplicitLac(13) == 0);
  CHECK(*store->LastAddConfirmed(13) == 0);
}

}  // namespace
}  // namespace bk::bookie
