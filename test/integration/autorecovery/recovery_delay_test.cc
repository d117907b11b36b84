// lostBookieRecoveryDelay changed at run time, end to end: a real ZooKeeper,
// bookie processes and a `bkctl autorecovery` process configured with no
// delay. A delay set cluster-wide holds a lost bookie's ledgers unmarked;
// a value written to the node alone (as BookKeeper's shell does) is applied
// too; `bkctl replication delay --set 0` lets the auditor mark them at
// once, and the workers move them off, with no restart.

#include "autorecovery/recovery_delay.h"

#include <catch2/catch.hpp>

#include "autorecovery_fixture.h"
#include "test/support/bookie_process.h"
#include "test/support/http_get.h"
#include "test/support/poll_until.h"

namespace bk::autorecovery {
namespace {

using bk::testing::PollUntil;

TEST_CASE(
    "a delay set cluster-wide holds a lost bookie's ledgers, and setting it "
    "to zero with bkctl has them repaired without a restart",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("delay");
  const std::string gone = f.cluster->id(3);
  f.ClosedLedgersNaming(gone, 6, 40);
  REQUIRE(SetLostBookieRecoveryDelay(f.store.get(), 3600).ok());
  auto metrics_port = bk::testing::PickFreePort();
  REQUIRE(metrics_port.ok());
  // Configured with --lostBookieRecoveryDelay=0.
  AutoRecoveryProcess a(
      f.uri, "ar-delay", f.dir.path(), f.password_file, 5000,
      {"--prometheusStatsHttpPort=" + std::to_string(*metrics_port)});
  const std::string gauge =
      "bk_autorecovery_lost_bookie_recovery_delay_seconds";
  const std::string log = f.dir.path() + "/ar-delay.log";
  // The first audit took the cluster-wide hour over the configured 0.
  REQUIRE(PollUntil(
      [&] {
        return CountInFile(log,
                           "lostBookieRecoveryDelay is now 1h (set "
                           "cluster-wide)") == 1;
      },
      absl::Seconds(60)));
  CHECK(PollUntil(
      [&] { return bk::testing::MetricValue(*metrics_port, gauge) == 3600; }));
  // What the alert RecoveryDelayRaised compares it with.
  CHECK(bk::testing::MetricValue(
            *metrics_port,
            "bk_autorecovery_lost_bookie_recovery_delay_configured_seconds") ==
        0);
  REQUIRE(f.cluster->Kill(3).ok());
  // The registrations changed: the auditor saw the bookie missing, and
  // waits.
  REQUIRE(PollUntil(
      [&] { return CountInFile(log, "bookie " + gone + " is missing") >= 1; },
      absl::Seconds(60)));
  CHECK(f.NothingMarked());
  CHECK(f.Names(gone));
  // Written as BookKeeper's shell writes it: the node alone, no audit
  // request. The auditor notices the change and applies it.
  REQUIRE(
      f.store
          ->SetNode(kLostBookieRecoveryDelayNode, "1800", metadata::kAnyVersion)
          .ok());
  REQUIRE(PollUntil(
      [&] {
        return CountInFile(log,
                           "lostBookieRecoveryDelay is now 30m (set "
                           "cluster-wide)") == 1;
      },
      absl::Seconds(60)));
  CHECK(PollUntil(
      [&] { return bk::testing::MetricValue(*metrics_port, gauge) == 1800; }));
  CHECK(f.NothingMarked());

  auto run = bk::testing::RunProcess(
      BKCTL_PATH,
      {"replication", "delay", "--metadata-uri", f.uri, "--set", "0", "--json"},
      absl::Seconds(60));
  REQUIRE(run.ok());
  INFO(run->out << run->err);
  REQUIRE(run->exit.exit_code == 0);
  CHECK(run->out.find("\"delay_seconds\": 0") != std::string::npos);
  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  CHECK(CountInFile(
            log, "lostBookieRecoveryDelay is now 0 (set cluster-wide)") == 1);
  CHECK(bk::testing::MetricValue(*metrics_port, gauge) == 0);
  f.CheckReplicasAndRacks(gone);
}

}  // namespace
}  // namespace bk::autorecovery
