// Autorecovery end to end: a ZooKeeper server, five bookie processes over
// three racks, and `bkctl autorecovery` processes (the auditor and workers).
//
// The cluster loses a bookie for good (SIGKILL): every ledger returns to
// full replication on the others, the auditor's process being killed in
// the middle; every acknowledged entry is then read back from every
// replica the final metadata names, each bookie asked directly; every
// write set still spans two racks. A live bookie is then decommissioned
// while writers write.

#include "autorecovery/autorecovery.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/ledgers_on_bookie.h"
#include "autorecovery/recovery_delay.h"
#include "autorecovery/underreplication.h"
#include "autorecovery_fixture.h"
#include "client/bookie_admin.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "test/support/bookie_cluster.h"
#include "test/support/bookie_process.h"
#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"
#include "test/support/zk_server.h"

namespace bk::autorecovery {
namespace {

using bk::testing::PollUntil;

// Writers that keep appending to their ledgers on a thread of their own,
// recording what was acknowledged.
class Writers {
 public:
  Writers(client::Client* client, int n) {
    for (int i = 0; i < n; ++i) {
      auto w = client->CreateLedger({.ensemble_size = 3,
                                     .write_quorum = 2,
                                     .ack_quorum = 2,
                                     .password = "pw"});
      REQUIRE(w.ok());
      writers_.push_back(std::move(*w));
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~Writers() { Pause(); }
  std::vector<int64_t> ids() const {
    std::vector<int64_t> out;
    for (const auto& w : writers_) out.push_back(w->ledger_id());
    return out;
  }
  // Stops appending (every append answered); the ledgers stay open.
  void Pause() {
    if (!thread_.joinable()) return;
    {
      absl::MutexLock l(&mu_);
      stop_ = true;
    }
    thread_.join();
  }
  // Pause, then close every ledger.
  void Stop() {
    Pause();
    for (auto& w : writers_) close_status_.push_back(w->Close());
  }
  std::map<int64_t, std::set<int64_t>> acked() {
    absl::MutexLock l(&mu_);
    return acked_;
  }
  int64_t failures() {
    absl::MutexLock l(&mu_);
    return failures_;
  }
  const std::vector<absl::Status>& close_status() const {
    return close_status_;
  }

 private:
  void Run() {
    int64_t round = 0;
    while (true) {
      {
        absl::MutexLock l(&mu_);
        if (stop_) break;
      }
      std::vector<std::future<absl::StatusOr<int64_t>>> acks;
      for (auto& w : writers_) {
        acks.push_back(w->Append(Payload(w->ledger_id(), round)));
      }
      for (size_t i = 0; i < acks.size(); ++i) {
        auto r = acks[i].get();
        absl::MutexLock l(&mu_);
        if (r.ok()) {
          acked_[writers_[i]->ledger_id()].insert(*r);
        } else {
          ++failures_;
        }
      }
      ++round;
      absl::SleepFor(absl::Milliseconds(20));  // a steady, modest load
    }
  }

  std::vector<std::unique_ptr<client::LedgerWriter>> writers_;
  std::thread thread_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int64_t, std::set<int64_t>> acked_ ABSL_GUARDED_BY(mu_);
  int64_t failures_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<absl::Status> close_status_;
};

TEST_CASE(
    "after a bookie is lost for good every ledger returns to full "
    "replication, though the auditor's process is killed during the repair",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("lost");
  // 50 ledgers at E3/WQ2/AQ2: 30 closed, 15 open with writers that keep
  // writing, 5 open whose writers went quiet.
  for (int i = 0; i < 30; ++i) f.ClosedLedger(40);
  Writers quiet(f.client.get(), 5);
  Writers active(f.client.get(), 15);
  REQUIRE(PollUntil([&] { return active.acked().size() == 15; }));
  REQUIRE(PollUntil([&] { return quiet.acked().size() == 5; }));
  quiet.Pause();  // open, idle: recovered by a worker after the grace
  AutoRecoveryProcess a(f.uri, "ar-a", f.dir.path(), f.password_file, 5000);
  REQUIRE(PollUntil(
      [&] { return CurrentAuditor(f.store.get()).value_or("") == "ar-a"; }));
  AutoRecoveryProcess b(f.uri, "ar-b", f.dir.path(), f.password_file, 5000);

  // bk3: rack0's second bookie, so every ensemble can still span 3 racks.
  const std::string gone = f.cluster->id(3);
  REQUIRE(f.Names(gone));
  // Quiet open ledgers on it: only a worker's recovery (after the grace)
  // can move their last segment.
  std::vector<int64_t> quiet_on_gone;
  for (int64_t id : quiet.ids()) {
    auto md = f.store->ReadLedger(id);
    REQUIRE(md.ok());
    for (const auto& b : md->value.segments(0).bookies()) {
      if (b == gone) quiet_on_gone.push_back(id);
    }
  }
  REQUIRE(f.cluster->Kill(3).ok());
  // Repair under way: kill the auditor's process.
  UnderreplicationManager marks(f.store.get());
  REQUIRE(PollUntil(
      [&] {
        auto l = marks.List();
        return l.ok() && !l->empty();
      },
      absl::Seconds(60)));
  a.Kill();
  REQUIRE(PollUntil(
      [&] { return CurrentAuditor(f.store.get()).value_or("") == "ar-b"; },
      absl::Seconds(30)));

  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(240), absl::Milliseconds(500)));
  for (int64_t id : quiet_on_gone) {
    auto md = f.store->ReadLedger(id);
    REQUIRE(md.ok());
    CHECK(md->value.state() == proto::CLOSED);
  }
  INFO(quiet_on_gone.size() << " quiet ledgers were on " << gone);
  active.Stop();
  for (const auto& s : active.close_status()) CHECK(s.ok());
  CHECK(active.failures() == 0);
  // The quiet ones on the lost bookie were recovered (closed) by a worker;
  // the others close now.
  quiet.Stop();
  for (auto& [id, e] : active.acked()) f.acked[id] = e;
  for (auto& [id, e] : quiet.acked()) f.acked[id] = e;
  REQUIRE(f.acked.size() == 50);
  f.CheckReplicasAndRacks(gone);
}

TEST_CASE(
    "a live bookie is decommissioned under write load: no ledger "
    "names it afterwards and nothing is lost",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("decommission");
  for (int i = 0; i < 10; ++i) f.ClosedLedger(40);
  AutoRecoveryProcess a(f.uri, "ar-a", f.dir.path(), f.password_file, 5000);
  // New ledgers must not land on it: it drains read-only.
  const std::string leaving = f.cluster->id(3);
  REQUIRE(f.cluster->Restart(3, {"--forceReadOnlyBookie=true"}).ok());
  Writers active(f.client.get(), 5);
  auto run = bk::testing::RunProcess(
      BKCTL_PATH,
      {"decommission", "--metadata-uri", f.uri, "--bookie", leaving, "--json",
       "--timeout-seconds", "240"},
      absl::Seconds(300));
  REQUIRE(run.ok());
  INFO(run->out << run->err);
  REQUIRE(run->exit.exit_code == 0);
  CHECK(run->out.find("\"safe_to_remove\": true") != std::string::npos);
  CHECK_FALSE(f.Names(leaving));
  // It is no longer a known bookie of the cluster.
  CHECK(absl::IsNotFound(f.store->ReadCookie(leaving).status()));
  active.Stop();
  for (const auto& s : active.close_status()) CHECK(s.ok());
  CHECK(active.failures() == 0);
  for (auto& [id, e] : active.acked()) f.acked[id] = e;
  f.CheckReplicasAndRacks(leaving);
}

TEST_CASE(
    "a bookie lost while re-replication is paused is neither marked nor "
    "copied, and is repaired once it is resumed",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("paused");
  const std::string gone = f.cluster->id(3);
  f.ClosedLedgersNaming(gone, 6, 40);
  UnderreplicationManager marks(f.store.get());
  REQUIRE(marks.SetReplicationEnabled(false, absl::Now()).ok());
  AutoRecoveryProcess a(f.uri, "ar-paused", f.dir.path(), f.password_file,
                        5000);
  const std::string log = f.dir.path() + "/ar-paused.log";
  auto paused_audits = [&] {
    return CountInFile(log, "replication is paused by an operator; not");
  };
  // The auditor's first audit found replication paused.
  REQUIRE(PollUntil([&] { return paused_audits() >= 1; }, absl::Seconds(60)));
  const int before = paused_audits();
  REQUIRE(f.cluster->Kill(3).ok());
  // The registrations changed: the auditor looked again, and was paused.
  REQUIRE(
      PollUntil([&] { return paused_audits() > before; }, absl::Seconds(60)));
  CHECK(f.NothingMarked());
  CHECK(f.Names(gone));
  REQUIRE(marks.SetReplicationEnabled(true, absl::Now()).ok());
  REQUIRE(RequestAudit(f.store.get()).ok());
  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  f.CheckReplicasAndRacks(gone);
}

TEST_CASE(
    "bookies that run autorecovery in their own process repair the "
    "ledgers of a lost one",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  // Every bookie runs autorecovery (autoRecoveryDaemonEnabled), as
  // BookKeeper deployments often do; the lost one may be the auditor.
  Fixture f("in-bookie",
            {"--autoRecoveryDaemonEnabled=true", "--lostBookieRecoveryDelay=0",
             "--autoRecoveryPollIntervalMs=200", "--rwRereplicateBackoffMs=500",
             "--ledgerPasswordFile="});
  const std::string gone = f.cluster->id(3);
  f.ClosedLedgersNaming(gone, 10, 40);
  REQUIRE(PollUntil(
      [&] { return !CurrentAuditor(f.store.get()).value_or("").empty(); }));
  REQUIRE(f.cluster->Kill(3).ok());
  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  f.CheckReplicasAndRacks(gone);
}

TEST_CASE(
    "a worker killed mid-copy leaves its ledger marked, and another "
    "worker repairs it with nothing lost or doubled",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("midcopy");
  const std::string gone = f.cluster->id(3);
  f.ClosedLedgersNaming(gone, 6, 200);
  REQUIRE(f.cluster->Kill(3).ok());
  // A slow worker (20 KB/s): it is still copying its first ledger when
  // killed.
  {
    AutoRecoveryProcess slow(f.uri, "ar-slow", f.dir.path(), f.password_file,
                             5000, {"--replicationRateByBytes=20000"});
    REQUIRE(PollUntil(
        [&] {
          auto kids = f.store->ListChildren("underreplication/locks");
          return kids.ok() && !kids->empty();
        },
        absl::Seconds(60)));
    slow.Kill();
  }
  // Its lock goes with its session; its ledger is still marked.
  REQUIRE(PollUntil(
      [&] {
        auto kids = f.store->ListChildren("underreplication/locks");
        return kids.ok() && kids->empty();
      },
      absl::Seconds(30)));
  CHECK_FALSE(f.NothingMarked());
  AutoRecoveryProcess fast(f.uri, "ar-fast", f.dir.path(), f.password_file,
                           5000);
  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  // No bookie twice in a segment (a doubled swap would show here).
  for (const auto& [id, e] : f.acked) {
    auto md = f.store->ReadLedger(id);
    REQUIRE(md.ok());
    for (const auto& seg : md->value.segments()) {
      std::set<std::string> distinct(seg.bookies().begin(),
                                     seg.bookies().end());
      CHECK(static_cast<int>(distinct.size()) == seg.bookies_size());
    }
  }
  f.CheckReplicasAndRacks(gone);
}

TEST_CASE(
    "the operator verbs: recover without the daemon, "
    "listunderreplicated, whoisauditor, triggeraudit",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("verbs");
  const std::string gone = f.cluster->id(3);
  f.ClosedLedgersNaming(gone, 6, 40);
  // Two ledgers at least on it, placed while it runs: one is moved below
  // and the others must still name it (once it is down, no new ledger can
  // be placed on it).
  auto placed = LedgersOnBookie(f.store.get(), gone);
  REQUIRE(placed.ok());
  for (int extra = 0; placed->size() < 2; ++extra) {
    REQUIRE(extra < 64);
    f.ClosedLedger(40);
    placed = LedgersOnBookie(f.store.get(), gone);
    REQUIRE(placed.ok());
  }
  auto bkctl = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--metadata-uri", f.uri});
    auto r = bk::testing::RunProcess(BKCTL_PATH, args, absl::Seconds(120));
    REQUIRE(r.ok());
    return *r;
  };
  auto none = bkctl({"whoisauditor", "--json"});
  CHECK(none.exit.exit_code == 1);
  CHECK(none.out.find("\"auditor\": null") != std::string::npos);

  REQUIRE(f.cluster->Kill(3).ok());
  // A mark by hand, as an auditor would make it: listed.
  UnderreplicationManager marks(f.store.get());
  REQUIRE(marks.Mark(0, {gone}, absl::Now()).ok());
  auto listed = bkctl({"listunderreplicated", "--json"});
  INFO(listed.err);
  CHECK(listed.exit.exit_code == 0);
  CHECK(listed.out.find("\"ledger\": 0") != std::string::npos);
  CHECK(listed.out.find(gone) != std::string::npos);

  // --ledger: a ledger that does not name the bookie moves nothing.
  auto typo = bkctl({"recover", "--bookie", gone, "--ledger", "999999",
                     "--password-file", f.password_file});
  CHECK(typo.exit.exit_code == 2);
  CHECK(typo.err.find("ledger 999999 does not name " + gone) !=
        std::string::npos);
  // One ledger moved off it; the others still name it.
  auto on = LedgersOnBookie(f.store.get(), gone);
  REQUIRE(on.ok());
  REQUIRE(on->size() >= 2);
  // ledger list --bookie: the same ledgers, from the metadata store.
  auto by_bookie = bk::testing::RunProcess(
      BKCTL_PATH, {"ledger", "list", "--metadata-uri", f.uri, "--bookie", gone},
      absl::Seconds(120));
  REQUIRE(by_bookie.ok());
  INFO(by_bookie->err);
  CHECK(by_bookie->exit.exit_code == 0);
  std::string want_listed;
  for (int64_t id : *on) want_listed += std::to_string(id) + "\n";
  CHECK(by_bookie->out == want_listed);
  const int64_t one = on->back();
  auto single =
      bkctl({"recover", "--bookie", gone, "--ledger", std::to_string(one),
             "--password-file", f.password_file, "--json"});
  INFO(single.out << single.err);
  CHECK(single.exit.exit_code == 0);
  CHECK(single.out.find("\"ledgers\": 1,") != std::string::npos);
  auto after = LedgersOnBookie(f.store.get(), gone);
  REQUIRE(after.ok());
  CHECK(*after == std::vector<int64_t>(on->begin(), on->end() - 1));
  // Another bookie's mark is not recover --bookie gone's to take.
  const std::string elsewhere = "elsewhere.example:3181";
  REQUIRE(marks.Mark(one, {elsewhere}, absl::Now()).ok());

  auto recovered = bkctl({"recover", "--bookie", gone, "--password-file",
                          f.password_file, "--json"});
  INFO(recovered.out << recovered.err);
  CHECK(recovered.exit.exit_code == 0);
  CHECK(recovered.out.find("\"still_on_bookie\": []") != std::string::npos);
  CHECK_FALSE(f.Names(gone));
  auto kept = marks.Get(one);
  REQUIRE(kept.ok());
  CHECK(kept->missing == std::vector<std::string>{elsewhere});
  REQUIRE(marks.Unmark(*kept, {elsewhere}).ok());
  CHECK(f.NothingMarked());
  CHECK(bkctl({"listunderreplicated", "--json"}).out == "[]\n");
  f.CheckReplicasAndRacks(gone);

  // replication disable / status / enable, through the real ensemble
  // (--metadata-uri before a two-word command).
  auto grouped = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--metadata-uri", f.uri});
    auto r = bk::testing::RunProcess(BKCTL_PATH, args, absl::Seconds(120));
    REQUIRE(r.ok());
    return *r;
  };
  auto disabled = grouped({"replication", "disable"});
  CHECK(disabled.exit.exit_code == 0);
  CHECK(absl::StrContains(disabled.out, "replication disabled since "));
  CHECK(grouped({"replication", "status", "--json"})
            .out.find("\"enabled\": false") != std::string::npos);
  CHECK_FALSE(*marks.ReplicationEnabled());
  CHECK(grouped({"cluster", "info", "--json"})
            .out.find("\"replication_enabled\": false") != std::string::npos);
  auto enabled = grouped({"replication", "enable"});
  CHECK(enabled.exit.exit_code == 0);
  CHECK(enabled.out == "replication enabled\n");
  CHECK(*marks.ReplicationEnabled());

  // replication delay: shown, set, refused when bad (nothing changed),
  // cleared.
  CHECK(absl::StrContains(grouped({"replication", "delay"}).out,
                          "not set cluster-wide"));
  auto set = grouped({"replication", "delay", "--set", "900"});
  CHECK(set.exit.exit_code == 0);
  CHECK(absl::StrContains(set.out, "lostBookieRecoveryDelay 900 s"));
  for (std::vector<std::string> bad : {std::vector<std::string>{"--set", "-1"},
                                       {"--set", "soon"},
                                       {"--set", "99999999999"},
                                       {"--set", "5", "--clear"}}) {
    bad.insert(bad.begin(), {"replication", "delay"});
    auto r = grouped(bad);
    INFO(r.err);
    CHECK(r.exit.exit_code == 2);
  }
  CHECK(**ReadLostBookieRecoveryDelay(f.store.get()) == absl::Seconds(900));
  CHECK(absl::StrContains(grouped({"cluster", "info"}).out,
                          "lostBookieRecoveryDelay: 900 s, cluster-wide"));
  CHECK(grouped({"replication", "delay", "--clear", "--json"}).out ==
        "{\n  \"set\": false\n}\n");
  CHECK_FALSE(ReadLostBookieRecoveryDelay(f.store.get())->has_value());

  AutoRecoveryProcess a(f.uri, "ar-verbs", f.dir.path(), f.password_file, 5000);
  REQUIRE(
      PollUntil([&] { return bkctl({"whoisauditor"}).out == "ar-verbs\n"; }));
  auto trig = bkctl({"triggeraudit", "--json"});
  CHECK(trig.exit.exit_code == 0);
  CHECK(trig.out.find("\"auditor\": \"ar-verbs\"") != std::string::npos);
  auto request = f.store->ReadNode(kAuditRequestNode);
  CHECK(request.ok());
}

}  // namespace
}  // namespace bk::autorecovery
