// lostBookieRecoveryDelay set cluster-wide at run time: the node's life, bad
// values refused with nothing written, and the auditor applying it at its
// next audit and falling back to its configuration once it is cleared.

#include "autorecovery/recovery_delay.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "autorecovery/auditor.h"
#include "autorecovery/underreplication.h"
#include "metadata/metadata_store.h"
#include "test/support/ledger_metadata.h"

namespace bk::autorecovery {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1700000000);

std::unique_ptr<metadata::MetadataStore> Store(const std::string& name) {
  auto s = metadata::Open("mem://" + name);
  REQUIRE(s.ok());
  return std::move(*s);
}

TEST_CASE(
    "the cluster-wide lostBookieRecoveryDelay is set, read and cleared, and "
    "a value out of range is refused with nothing written",
    "[autorecovery]") {
  auto store = Store("delay-node");
  auto none = ReadLostBookieRecoveryDelay(store.get());
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  REQUIRE(SetLostBookieRecoveryDelay(store.get(), 600).ok());
  CHECK(store->ReadNode(kLostBookieRecoveryDelayNode)->value == "600");
  CHECK(**ReadLostBookieRecoveryDelay(store.get()) == absl::Seconds(600));
  REQUIRE(SetLostBookieRecoveryDelay(store.get(), 0).ok());
  CHECK(**ReadLostBookieRecoveryDelay(store.get()) == absl::ZeroDuration());

  for (int64_t bad : {int64_t{-1}, kMaxLostBookieRecoveryDelaySeconds + 1}) {
    INFO(bad);
    absl::Status s = SetLostBookieRecoveryDelay(store.get(), bad);
    CHECK(absl::IsInvalidArgument(s));
    CHECK(absl::StrContains(s.message(), "lostBookieRecoveryDelay"));
    CHECK(**ReadLostBookieRecoveryDelay(store.get()) == absl::ZeroDuration());
  }

  REQUIRE(ClearLostBookieRecoveryDelay(store.get()).ok());
  CHECK_FALSE(ReadLostBookieRecoveryDelay(store.get())->has_value());
  CHECK(ClearLostBookieRecoveryDelay(store.get()).ok());  // again: no-op

  // Written by hand (or by another tool) and not a number: DataLoss.
  REQUIRE(store
              ->CreateNode(kLostBookieRecoveryDelayNode, "ten minutes",
                           metadata::MetadataStore::NodeMode::kPersistent)
              .ok());
  auto bad = ReadLostBookieRecoveryDelay(store.get());
  CHECK(absl::IsDataLoss(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "ten minutes"));
}

TEST_CASE(
    "the auditor applies the cluster-wide delay at its next audit, keeps its "
    "last delay over a malformed value, and uses its configuration once the "
    "value is cleared",
    "[autorecovery]") {
  const std::string name = "delay-auditor";
  auto store = Store(name);
  std::map<std::string, std::unique_ptr<metadata::MetadataStore>> bookies;
  for (const char* b : {"bk0", "bk1", "bk2", "bk3"}) {
    auto s = Store(name);
    proto::BookieServiceInfo info;
    info.set_bookie_id(b);
    info.set_grpc_endpoint("127.0.0.1:1");
    REQUIRE(s->RegisterBookie(info).ok());
    bookies[b] = std::move(s);
  }
  auto md = [](std::vector<std::string> ensemble) {
    return testing::TestLedgerMetadata({.segments = {std::move(ensemble)},
                                        .state = proto::CLOSED,
                                        .last_entry_id = 9});
  };
  REQUIRE(store->CreateLedger(1, md({"bk0", "bk1", "bk2"})).ok());
  REQUIRE(store->CreateLedger(2, md({"bk1", "bk2", "bk3"})).ok());
  UnderreplicationManager marks(store.get());
  Auditor auditor(store.get(), &marks, absl::Hours(1));  // configured

  bookies.erase("bk0");
  auto r = auditor.Audit(kT0);
  REQUIRE(r.ok());
  CHECK(r->delay == absl::Hours(1));
  CHECK(r->waiting == std::vector<std::string>{"bk0"});
  CHECK(auditor.NextDeadline() == kT0 + absl::Hours(1));

  // An operator shortens it: bk0, missing for 2 minutes, is lost now.
  REQUIRE(SetLostBookieRecoveryDelay(store.get(), 60).ok());
  r = auditor.Audit(kT0 + absl::Minutes(2));
  REQUIRE(r.ok());
  CHECK(r->delay == absl::Minutes(1));
  CHECK(r->lost == std::vector<std::string>{"bk0"});
  CHECK(*marks.List() == std::vector<LedgerId>{1});

  // A malformed value does not stop the audits: the last delay stays.
  REQUIRE(
      store->SetNode(kLostBookieRecoveryDelayNode, "-5", metadata::kAnyVersion)
          .ok());
  bookies.erase("bk3");
  r = auditor.Audit(kT0 + absl::Minutes(3));
  REQUIRE(r.ok());
  CHECK(r->delay == absl::Minutes(1));
  CHECK(r->waiting == std::vector<std::string>{"bk3"});
  CHECK(auditor.NextDeadline() == kT0 + absl::Minutes(4));

  // Cleared: the configured hour applies again to bk3; bk0, marked
  // already, stays lost.
  REQUIRE(ClearLostBookieRecoveryDelay(store.get()).ok());
  r = auditor.Audit(kT0 + absl::Minutes(10));
  REQUIRE(r.ok());
  CHECK(r->delay == absl::Hours(1));
  CHECK(r->waiting == std::vector<std::string>{"bk3"});
  CHECK(r->lost == std::vector<std::string>{"bk0"});
  CHECK(*marks.List() == std::vector<LedgerId>{1});
  CHECK(auditor.NextDeadline() == kT0 + absl::Minutes(3) + absl::Hours(1));
}

}  // namespace
}  // namespace bk::autorecovery
