// UnderreplicationManager and AuditorElection against the in-process
// metadata store.

#include "autorecovery/underreplication.h"

#include <catch2/catch.hpp>

#include "autorecovery/auditor_election.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {
namespace {

std::unique_ptr<metadata::MetadataStore> Store(const std::string& cluster) {
  auto s = metadata::Open("mem://" + cluster);
  REQUIRE(s.ok());
  return std::move(*s);
}

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

TEST_CASE(
    "marks live at BookKeeper's paths: four hex groups, then urL and "
    "the decimal id",
    "[autorecovery]") {
  CHECK(UnderreplicationManager::MarkPath(1) ==
        "underreplication/ledgers/0000/0000/0000/0001/urL0000000001");
  CHECK(UnderreplicationManager::MarkPath(0x1234567890abLL) ==
        "underreplication/ledgers/0000/1234/5678/90ab/urL20015998341291");
  CHECK(UnderreplicationManager::LockPath(42) ==
        "underreplication/locks/urL0000000042");
}

TEST_CASE(
    "replication is paused and resumed at BookKeeper's disable node, "
    "keeping the time it was first paused",
    "[autorecovery]") {
  auto store = Store("ur-disable");
  UnderreplicationManager m(store.get());
  CHECK(*m.ReplicationEnabled());
  CHECK_FALSE(m.ReplicationDisabledSince()->has_value());
  REQUIRE(m.SetReplicationEnabled(false, kT0).ok());
  REQUIRE(m.SetReplicationEnabled(false, kT0 + absl::Hours(1)).ok());
  CHECK_FALSE(*m.ReplicationEnabled());
  CHECK(**m.ReplicationDisabledSince() == kT0);
  CHECK(store->ReadNode("underreplication/disable").ok());
  REQUIRE(m.SetReplicationEnabled(true, kT0).ok());
  REQUIRE(m.SetReplicationEnabled(true, kT0).ok());
  CHECK(*m.ReplicationEnabled());
  // A disable node without a time (as BookKeeper writes it) pauses too.
  REQUIRE(store
              ->CreateNode("underreplication/disable", "",
                           metadata::MetadataStore::NodeMode::kPersistent)
              .ok());
  CHECK_FALSE(*m.ReplicationEnabled());
  CHECK(**m.ReplicationDisabledSince() == absl::InfinitePast());
}

TEST_CASE(
    "a mark records each missing bookie once, merges later ones and "
    "keeps its first time",
    "[autorecovery]") {
  auto store = Store("ur-merge");
  UnderreplicationManager m(store.get());
  REQUIRE(m.Mark(7, {"bk1"}, kT0).ok());
  REQUIRE(m.Mark(7, {"bk2", "bk1"}, kT0 + absl::Seconds(5)).ok());
  REQUIRE(m.Mark(3, {"bk1"}, kT0).ok());
  auto got = m.Get(7);
  REQUIRE(got.ok());
  CHECK(got->missing == std::vector<std::string>{"bk1", "bk2"});
  CHECK(got->marked_at == kT0);
  auto list = m.List();
  REQUIRE(list.ok());
  CHECK(*list == std::vector<LedgerId>{3, 7});
  CHECK(absl::IsNotFound(m.Get(8).status()));
}

TEST_CASE(
    "unmarking removes the repaired bookies, the mark once none is "
    "left, and refuses a mark that changed since it was read",
    "[autorecovery]") {
  auto store = Store("ur-unmark");
  UnderreplicationManager m(store.get());
  REQUIRE(m.Mark(7, {"bk1", "bk2"}, kT0).ok());
  auto read = m.Get(7);
  REQUIRE(read.ok());
  REQUIRE(m.Mark(7, {"bk3"}, kT0).ok());  // a new loss meanwhile
  CHECK(absl::IsAborted(m.Unmark(*read, {"bk1", "bk2"})));
  auto again = m.Get(7);
  REQUIRE(again.ok());
  CHECK(again->missing.size() == 3);
  REQUIRE(m.Unmark(*again, {"bk1"}).ok());
  auto left = m.Get(7);
  REQUIRE(left.ok());
  CHECK(left->missing == std::vector<std::string>{"bk2", "bk3"});
  REQUIRE(m.Unmark(*left, {"bk2", "bk3"}).ok());
  CHECK(absl::IsNotFound(m.Get(7).status()));
  CHECK(m.List()->empty());
}

TEST_CASE("a malformed mark is reported as data loss", "[autorecovery]") {
  auto store = Store("ur-bad");
  REQUIRE(store
              ->CreateNode(UnderreplicationManager::MarkPath(5), "garbage",
                           metadata::MetadataStore::NodeMode::kPersistent)
              .ok());
  UnderreplicationManager m(store.get());
  CHECK(absl::IsDataLoss(m.Get(5).status()));
}

TEST_CASE(
    "one worker holds a ledger's lock, it is freed by unlock or with "
    "the holder's session",
    "[autorecovery]") {
  auto a = Store("ur-lock");
  auto b = Store("ur-lock");
  UnderreplicationManager ma(a.get()), mb(b.get());
  CHECK(*ma.TryLock(9, "a"));
  CHECK_FALSE(*mb.TryLock(9, "b"));
  // Unlock by a non-holder leaves the lock alone.
  REQUIRE(mb.Unlock(9).ok());
  CHECK_FALSE(*mb.TryLock(9, "b"));
  REQUIRE(ma.Unlock(9).ok());
  CHECK(*mb.TryLock(9, "b"));
  b.reset();  // the holder dies
  CHECK(*ma.TryLock(9, "a"));
}

TEST_CASE(
    "the first candidate is the auditor, when it goes, the next one "
    "takes over",
    "[autorecovery]") {
  auto sa = Store("election");
  auto sb = Store("election");
  auto a = std::make_unique<AuditorElection>(sa.get(), "ar-a");
  AuditorElection b(sb.get(), "ar-b");
  CHECK(*CurrentAuditor(sb.get()) == "");
  CHECK(*a->Run());
  CHECK_FALSE(*b.Run());
  CHECK(*CurrentAuditor(sb.get()) == "ar-a");
  a.reset();
  sa.reset();  // its session ends
  CHECK(*b.Run());
  CHECK(*CurrentAuditor(sb.get()) == "ar-b");
}

}  // namespace
}  // namespace bk::autorecovery
