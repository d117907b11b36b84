// The replication worker's decisions against the in-process metadata store
// (no bookies: these cases copy nothing), and the replica check's pause. Copies
// against real bookies are in test/integration/autorecovery.

#include <catch2/catch.hpp>

#include "autorecovery/replica_check.h"
#include "autorecovery/replication_worker.h"
#include "autorecovery/underreplication.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "test/support/ledger_metadata.h"

namespace bk::autorecovery {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

proto::LedgerMetadata Md(proto::LedgerState state, const std::string& password,
                         std::vector<std::vector<std::string>> segments) {
  testing::TestLedger t{.segments = std::move(segments),
                        .state = state,
                        .password_hash = client::PasswordHash(password)};
  if (state == proto::CLOSED) t.last_entry_id = -1;
  return testing::TestLedgerMetadata(t);
}

struct Fixture {
  explicit Fixture(const std::string& name) {
    auto s = metadata::Open("mem://" + name);
    REQUIRE(s.ok());
    store = std::move(*s);
    client::ClientOptions co;
    co.metadata_service_uri = "mem://" + name;
    auto c = client::Client::Create(co);
    REQUIRE(c.ok());
    client = std::move(*c);
    marks = std::make_unique<UnderreplicationManager>(store.get());
    WorkerOptions o;
    o.owner = "worker-test";
    o.backoff = absl::Seconds(5);
    o.open_ledger_grace_period = absl::Seconds(30);
    o.passwords = {"pw"};
    worker = std::make_unique<ReplicationWorker>(client.get(), store.get(),
                                                 marks.get(), o);
  }
  std::unique_ptr<metadata::MetadataStore> store;
  std::unique_ptr<client::Client> client;
  std::unique_ptr<UnderreplicationManager> marks;
  std::unique_ptr<ReplicationWorker> worker;
};

TEST_CASE("with nothing marked the worker is idle", "[autorecovery]") {
  Fixture f("worker-idle");
  auto r = f.worker->RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kIdle);
}

TEST_CASE("the mark of a deleted ledger is removed", "[autorecovery]") {
  Fixture f("worker-deleted");
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  auto r = f.worker->RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kRepaired);
  CHECK(r->ledger == 4);
  CHECK(f.marks->List()->empty());
}

TEST_CASE(
    "a mark whose bookie no segment names any more is removed without "
    "copying",
    "[autorecovery]") {
  Fixture f("worker-done");
  REQUIRE(f.store->CreateLedger(4, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
              .ok());
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  auto r = f.worker->RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kRepaired);
  CHECK(r->fragments == 0);
  CHECK(f.marks->List()->empty());
}

TEST_CASE(
    "a ledger whose password the worker lacks stays marked and is "
    "retried only after the back-off",
    "[autorecovery]") {
  Fixture f("worker-password");
  REQUIRE(
      f.store->CreateLedger(4, Md(proto::CLOSED, "secret", {{"bk0", "b", "c"}}))
          .ok());
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  auto r = f.worker->RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kFailed);
  CHECK(absl::IsFailedPrecondition(r->error));
  CHECK(*f.marks->List() == std::vector<LedgerId>{4});
  CHECK(f.worker->RunOnce(kT0 + absl::Seconds(1))->outcome ==
        WorkResult::kIdle);
  CHECK(f.worker->RunOnce(kT0 + absl::Seconds(5))->outcome ==
        WorkResult::kFailed);
}

TEST_CASE(
    "a worker given only some ledgers repairs those and leaves the other "
    "marks to other workers",
    "[autorecovery]") {
  Fixture f("worker-only");
  for (LedgerId id : {4, 5, 6}) {
    REQUIRE(
        f.store->CreateLedger(id, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
            .ok());
    REQUIRE(f.marks->Mark(id, {"bk0"}, kT0).ok());
  }
  WorkerOptions o;
  o.owner = "worker-only";
  o.passwords = {"pw"};
  o.only = {5};
  ReplicationWorker only5(f.client.get(), f.store.get(), f.marks.get(), o);
  auto r = only5.RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kRepaired);
  CHECK(r->ledger == 5);
  CHECK(only5.RunOnce(kT0)->outcome == WorkResult::kIdle);
  CHECK(*f.marks->List() == std::vector<LedgerId>{4, 6});
  // A worker without the restriction takes the rest.
  CHECK(f.worker->RunOnce(kT0)->ledger == 4);
  CHECK(f.worker->RunOnce(kT0)->ledger == 6);
  CHECK(f.marks->List()->empty());
}

TEST_CASE(
    "while replication is paused a worker takes nothing, except one told "
    "not to wait (bkctl recover)",
    "[autorecovery]") {
  Fixture f("worker-paused");
  REQUIRE(f.store->CreateLedger(4, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
              .ok());
  REQUIRE(f.store->CreateLedger(5, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
              .ok());
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  REQUIRE(f.marks->Mark(5, {"bk0"}, kT0).ok());
  REQUIRE(f.marks->SetReplicationEnabled(false, kT0).ok());
  auto r = f.worker->RunOnce(kT0);
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kIdle);
  CHECK(*f.marks->List() == std::vector<LedgerId>{4, 5});
  WorkerOptions o;
  o.owner = "worker-recover";
  o.passwords = {"pw"};
  o.honour_disable = false;
  o.only = {4};
  ReplicationWorker recover(f.client.get(), f.store.get(), f.marks.get(), o);
  CHECK(recover.RunOnce(kT0)->ledger == 4);
  CHECK(*f.marks->List() == std::vector<LedgerId>{5});
  REQUIRE(f.marks->SetReplicationEnabled(true, kT0).ok());
  CHECK(f.worker->RunOnce(kT0)->ledger == 5);
  CHECK(f.marks->List()->empty());
}

TEST_CASE(
    "while replication is paused the periodic replica check asks no bookie "
    "and marks nothing",
    "[autorecovery]") {
  Fixture f("check-paused");
  REQUIRE(f.store->CreateLedger(4, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
              .ok());
  REQUIRE(f.marks->SetReplicationEnabled(false, kT0).ok());
  ReplicaCheck check(f.store.get(), f.marks.get(), f.client.get(),
                     absl::Milliseconds(100));
  auto paused = check.Run(kT0);
  REQUIRE(paused.ok());
  CHECK(paused->replication_disabled);
  CHECK(paused->ledgers_checked == 0);
  REQUIRE(f.marks->SetReplicationEnabled(true, kT0).ok());
  auto resumed = check.Run(kT0);
  REQUIRE(resumed.ok());
  CHECK_FALSE(resumed->replication_disabled);
  CHECK(resumed->ledgers_checked == 1);
}

TEST_CASE("a ledger locked by another worker is left to it", "[autorecovery]") {
  Fixture f("worker-locked");
  REQUIRE(f.store->CreateLedger(4, Md(proto::CLOSED, "pw", {{"a", "b", "c"}}))
              .ok());
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  auto other = metadata::Open("mem://worker-locked");
  REQUIRE(other.ok());
  UnderreplicationManager theirs(other->get());
  REQUIRE(*theirs.TryLock(4, "other"));
  CHECK(f.worker->RunOnce(kT0)->outcome == WorkResult::kIdle);
  other->reset();  // the other worker dies: its lock goes
  CHECK(f.worker->RunOnce(kT0)->outcome == WorkResult::kRepaired);
}

TEST_CASE(
    "an open ledger's last segment is left to its writer during the "
    "grace period",
    "[autorecovery]") {
  Fixture f("worker-grace");
  REQUIRE(f.store->CreateLedger(4, Md(proto::OPEN, "pw", {{"bk0", "b", "c"}}))
              .ok());
  REQUIRE(f.marks->Mark(4, {"bk0"}, kT0).ok());
  auto r = f.worker->RunOnce(kT0 + absl::Seconds(10));
  REQUIRE(r.ok());
  CHECK(r->outcome == WorkResult::kDeferred);
  CHECK(r->fragments == 0);
  CHECK(*f.marks->List() == std::vector<LedgerId>{4});
  auto md = f.store->ReadLedger(4);
  REQUIRE(md.ok());
  CHECK(md->value.state() == proto::OPEN);
  CHECK(md->version == 0);
}

}  // namespace
}  // namespace bk::autorecovery
