// The auditor's rule against the in-process metadata store: a bookie that
// ledgers name and that is not registered gets those ledgers marked once
// it has been missing for lostBookieRecoveryDelay.

#include "autorecovery/auditor.h"

#include <catch2/catch.hpp>

#include "autorecovery/underreplication.h"
#include "metadata/metadata_store.h"
#include "test/support/ledger_metadata.h"

namespace bk::autorecovery {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

proto::LedgerMetadata Md(std::vector<std::vector<std::string>> segments) {
  return testing::TestLedgerMetadata({.segments = std::move(segments),
                                      .state = proto::CLOSED,
                                      .last_entry_id = 100});
}

void Register(metadata::MetadataStore* store, const std::string& id,
              bool ro = false) {
  proto::BookieServiceInfo info;
  info.set_bookie_id(id);
  info.set_grpc_endpoint("127.0.0.1:1");
  info.set_read_only(ro);
  REQUIRE(store->RegisterBookie(info).ok());
}

struct Cluster {
  explicit Cluster(const std::string& name) {
    auto s = metadata::Open("mem://" + name);
    REQUIRE(s.ok());
    store = std::move(*s);
    // The bookies' own sessions: closing one unregisters it.
    for (const char* b : {"bk0", "bk1", "bk2", "bk3"}) {
      auto bs = metadata::Open("mem://" + name);
      REQUIRE(bs.ok());
      Register(bs->get(), b, std::string(b) == "bk3");
      bookies[b] = std::move(*bs);
    }
    REQUIRE(store->CreateLedger(1, Md({{"bk0", "bk1", "bk2"}})).ok());
    REQUIRE(store->CreateLedger(2, Md({{"bk1", "bk2", "bk3"}})).ok());
    // bk0 only in an old segment of ledger 3.
    REQUIRE(store
                ->CreateLedger(
                    3, Md({{"bk0", "bk2", "bk3"}, {"bk1", "bk2", "bk3"}}))
                .ok());
  }
  std::unique_ptr<metadata::MetadataStore> store;
  std::map<std::string, std::unique_ptr<metadata::MetadataStore>> bookies;
};

TEST_CASE(
    "with every bookie registered (read-only ones too) nothing is "
    "marked",
    "[autorecovery]") {
  Cluster c("audit-none");
  UnderreplicationManager marks(c.store.get());
  Auditor auditor(c.store.get(), &marks, absl::ZeroDuration());
  auto r = auditor.Audit(kT0);
  REQUIRE(r.ok());
  CHECK(r->ledgers_checked == 3);
  CHECK(r->lost.empty());
  CHECK(marks.List()->empty());
}

TEST_CASE(
    "a lost bookie's ledgers, every fragment on it counted, are "
    "marked with it as the missing replica",
    "[autorecovery]") {
  Cluster c("audit-lost");
  UnderreplicationManager marks(c.store.get());
  Auditor auditor(c.store.get(), &marks, absl::ZeroDuration());
  c.bookies.erase("bk0");
  auto r = auditor.Audit(kT0);
  REQUIRE(r.ok());
  CHECK(r->lost == std::vector<std::string>{"bk0"});
  CHECK(*marks.List() == std::vector<LedgerId>{1, 3});
  auto m = marks.Get(3);
  REQUIRE(m.ok());
  CHECK(m->missing == std::vector<std::string>{"bk0"});
  CHECK(m->marked_at == kT0);
}

TEST_CASE(
    "a missing bookie waits out lostBookieRecoveryDelay, and one that "
    "comes back in time is forgotten",
    "[autorecovery]") {
  Cluster c("audit-delay");
  UnderreplicationManager marks(c.store.get());
  Auditor auditor(c.store.get(), &marks, absl::Minutes(5));
  c.bookies.erase("bk3");  // a read-only bookie lost
  auto r = auditor.Audit(kT0);
  REQUIRE(r.ok());
  CHECK(r->waiting == std::vector<std::string>{"bk3"});
  CHECK(marks.List()->empty());
  CHECK(auditor.NextDeadline() == kT0 + absl::Minutes(5));

  r = auditor.Audit(kT0 + absl::Minutes(4));
  REQUIRE(r.ok());
  CHECK(marks.List()->empty());
  r = auditor.Audit(kT0 + absl::Minutes(5));
  REQUIRE(r.ok());
  CHECK(r->lost == std::vector<std::string>{"bk3"});
  CHECK(*marks.List() == std::vector<LedgerId>{2, 3});

  // bk1 goes and comes back within the delay: nothing of it is marked.
  auto bk1 = std::move(c.bookies["bk1"]);
  bk1.reset();
  r = auditor.Audit(kT0 + absl::Minutes(6));
  REQUIRE(r.ok());
  CHECK(r->waiting == std::vector<std::string>{"bk1"});
  auto back = metadata::Open("mem://audit-delay");
  REQUIRE(back.ok());
  Register(back->get(), "bk1");
  r = auditor.Audit(kT0 + absl::Minutes(20));
  REQUIRE(r.ok());
  CHECK(r->waiting.empty());
  auto marked = marks.List();
  REQUIRE(marked.ok());
  for (LedgerId l : *marked) {
    auto m = marks.Get(l);
    REQUIRE(m.ok());
    CHECK(m->missing == std::vector<std::string>{"bk3"});
  }
}

TEST_CASE(
    "a lost bookie that no ledger names any more is reported healed, "
    "with the time since it went missing",
    "[autorecovery]") {
  Cluster c("audit-healed");
  UnderreplicationManager marks(c.store.get());
  Auditor auditor(c.store.get(), &marks, absl::ZeroDuration());
  c.bookies.erase("bk0");
  REQUIRE(auditor.Audit(kT0).ok());
  // The workers' part, by hand: bk0 swapped out of ledgers 1 and 3.
  for (LedgerId l : {1, 3}) {
    auto md = c.store->ReadLedger(l);
    REQUIRE(md.ok());
    for (auto& seg : *md->value.mutable_segments()) {
      for (auto& b : *seg.mutable_bookies()) {
        if (b == "bk0") b = "bk9";
      }
    }
    Register(c.bookies["bk1"].get(), "bk9");
    REQUIRE(c.store->CompareAndSetLedger(l, md->value, md->version).ok());
  }
  auto r = auditor.Audit(kT0 + absl::Seconds(90));
  REQUIRE(r.ok());
  REQUIRE(r->healed.size() == 1);
  CHECK(r->healed[0].first == "bk0");
  CHECK(r->healed[0].second == absl::Seconds(90));
  CHECK(r->lost.empty());
}

TEST_CASE(
    "while replication is paused the auditor marks nothing, and marks "
    "the lost bookie's ledgers once it is resumed",
    "[autorecovery]") {
  Cluster c("audit-paused");
  UnderreplicationManager marks(c.store.get());
  Auditor auditor(c.store.get(), &marks, absl::ZeroDuration());
  REQUIRE(marks.SetReplicationEnabled(false, kT0).ok());
  c.bookies.erase("bk0");
  auto paused = auditor.Audit(kT0);
  REQUIRE(paused.ok());
  CHECK(paused->replication_disabled);
  CHECK(paused->ledgers_checked == 0);
  CHECK(paused->lost.empty());
  CHECK(marks.List()->empty());
  REQUIRE(marks.SetReplicationEnabled(true, kT0).ok());
  auto resumed = auditor.Audit(kT0 + absl::Seconds(1));
  REQUIRE(resumed.ok());
  CHECK_FALSE(resumed->replication_disabled);
  CHECK(resumed->lost == std::vector<std::string>{"bk0"});
  CHECK(*marks.List() == std::vector<LedgerId>{1, 3});
}

}  // namespace
}  // namespace bk::autorecovery
