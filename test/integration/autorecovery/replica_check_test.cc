// The auditor's periodic replica check (auditorPeriodicCheckInterval) end
// to end: real ZooKeeper, five real bookie processes over three racks, and
// autorecovery in this process. A bookie that is re-formatted (its disks
// wiped, fresh cookies, back under the same id) stays registered, so the
// bookie check sees nothing wrong; the replica check finds that it lacks
// the entries of its fragments, marks the ledgers, and the workers move
// those fragments to other bookies. Every acknowledged entry is then read
// back from every replica the final metadata names.

#include <catch2/catch.hpp>

#include "autorecovery/autorecovery.h"
#include "autorecovery_fixture.h"
#include "test/support/poll_until.h"

namespace bk::autorecovery {
namespace {

using bk::testing::PollUntil;

AutoRecoveryOptions CheckingOptions(const Fixture& f) {
  AutoRecoveryOptions o;
  o.metadata_uri = f.uri;
  o.id = "ar-check";
  o.zk_timeout = absl::Seconds(4);
  // The bookie check must not be what repairs the wiped bookie: it is away
  // only for its restart, far less than this.
  o.lost_bookie_recovery_delay = absl::Seconds(3600);
  o.auditor_periodic_check_interval = absl::Seconds(1);
  o.poll_interval = absl::Milliseconds(200);
  o.rw_rereplicate_backoff = absl::Milliseconds(500);
  o.rereplication_entry_batch_size = 50;
  o.ledger_passwords = {"pw"};
  return o;
}

TEST_CASE(
    "the periodic replica check finds a live bookie that was wiped and "
    "re-formatted, and its fragments are re-replicated elsewhere",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("replica-check");
  const std::string wiped = f.cluster->id(3);
  f.ClosedLedgersNaming(wiped, 8, 120);
  auto ar = AutoRecovery::Start(CheckingOptions(f));
  REQUIRE(ar.ok());

  // A healthy cluster: checks run and mark nothing.
  REQUIRE(PollUntil([&] { return (*ar)->stats().replica_checks >= 2; },
                    absl::Seconds(60)));
  CHECK((*ar)->stats().replica_check_marks == 0);
  CHECK(f.NothingMarked());

  REQUIRE(f.cluster->Kill(3).ok());
  REQUIRE(f.cluster->Format(3).ok());
  REQUIRE(f.cluster->Restart(3).ok());

  // Found by the replica check (the bookie is registered again), repaired
  // by the workers: no ledger names it, nothing is marked.
  REQUIRE(PollUntil([&] { return (*ar)->stats().replica_check_marks > 0; },
                    absl::Seconds(60)));
  REQUIRE(PollUntil([&] { return !f.Names(wiped) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  CHECK((*ar)->stats().ledgers_repaired > 0);
  (*ar)->Stop();
  f.CheckReplicasAndRacks(wiped);
}

}  // namespace
}  // namespace bk::autorecovery
