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
#include <thread>

#include "absl/synchronization/mutex.h"
#include "autorecovery/auditor_election.h"
#include "autorecovery/underreplication.h"
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

uint64_t Seed() {
  const char* env = getenv("BK_TEST_SEED");
  static const uint64_t seed = env ? std::stoull(env) : std::random_device()();
  return seed;
}

const std::vector<std::string> kRacks = {"/region/rack0", "/region/rack1",
                                         "/region/rack2"};

std::string Uri(const std::string& name) {
  return "zk://" + test::SharedZkServer().hosts() + "/autorecovery-it/" + name;
}

std::string Payload(int64_t ledger, int64_t e) {
  std::string p =
      "ledger " + std::to_string(ledger) + " entry " + std::to_string(e) + " ";
  p.resize(300, static_cast<char>('a' + (ledger + e) % 26));
  return p;
}

client::ClientOptions ClientOpts(const std::string& uri) {
  client::ClientOptions o;
  o.metadata_service_uri = uri;
  o.add_entry_timeout = absl::Seconds(2);
  o.read_entry_timeout = absl::Seconds(2);
  o.get_bookie_info_interval = absl::Milliseconds(200);
  o.seed = Seed();
  return o;
}

// One `bkctl autorecovery` process.
class AutoRecoveryProcess {
 public:
  AutoRecoveryProcess(const std::string& uri, const std::string& id,
                      const std::string& dir, const std::string& password_file,
                      int grace_ms, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {
        "autorecovery",
        "--metadata-uri",
        uri,
        "--autoRecoveryId=" + id,
        "--zkTimeout=4000",
        "--lostBookieRecoveryDelay=0",
        "--autoRecoveryPollIntervalMs=200",
        "--rwRereplicateBackoffMs=500",
        "--rereplicationEntryBatchSize=50",
        "--openLedgerRereplicationGracePeriod=" + std::to_string(grace_ms),
        "--ledgerPasswordFile=" + password_file};
    args.insert(args.end(), more.begin(), more.end());
    auto pid =
        bk::testing::SpawnProcess(BKCTL_PATH, args, dir + "/" + id + ".log");
    REQUIRE(pid.ok());
    pid_ = *pid;
  }
  ~AutoRecoveryProcess() {
    if (pid_ > 0) bk::testing::StopProcess(pid_);
  }
  void Kill() {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

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

struct Fixture {
  explicit Fixture(const std::string& name,
                   std::vector<std::string> bookie_flags = {})
      : uri(Uri(name)) {
    password_file = dir.Sub("passwords");
    std::ofstream(password_file) << "pw\n";
    ::chmod(password_file.c_str(), 0600);
    test::BookieCluster::Options o;
    o.extra_flags = std::move(bookie_flags);
    for (auto& flag : o.extra_flags) {
      if (flag == "--ledgerPasswordFile=") flag += password_file;
    }
    o.bookie_binary = BK_BOOKIE_BINARY;
    o.metadata_uri = uri;
    o.bookies = 5;
    o.racks = kRacks;
    o.zk_timeout_ms = 4000;
    auto c = test::BookieCluster::Start(o);
    INFO(c.status().ToString());
    REQUIRE(c.ok());
    cluster = std::move(*c);
    auto s = metadata::Open(uri);
    REQUIRE(s.ok());
    store = std::move(*s);
    auto cl = client::Client::Create(ClientOpts(uri));
    REQUIRE(cl.ok());
    client = std::move(*cl);
  }

  // A ledger with `n` entries, closed; its entries recorded as acked.
  int64_t ClosedLedger(int n) {
    auto w = client->CreateLedger({.ensemble_size = 3,
                                   .write_quorum = 2,
                                   .ack_quorum = 2,
                                   .password = "pw"});
    REQUIRE(w.ok());
    const int64_t id = (*w)->ledger_id();
    std::vector<std::future<absl::StatusOr<int64_t>>> acks;
    for (int e = 0; e < n; ++e) acks.push_back((*w)->Append(Payload(id, e)));
    for (int e = 0; e < n; ++e) {
      auto r = acks[e].get();
      REQUIRE(r.ok());
      acked[id].insert(*r);
    }
    REQUIRE((*w)->Close().ok());
    return id;
  }

  bool Names(const std::string& bookie) {
    auto it = store->ListLedgers();
    int64_t id;
    while (it->Next(&id)) {
      auto md = store->ReadLedger(id);
      if (!md.ok()) continue;
      for (const auto& seg : md->value.segments()) {
        for (const auto& b : seg.bookies()) {
          if (b == bookie) return true;
        }
      }
    }
    return false;
  }

  bool NothingMarked() {
    UnderreplicationManager marks(store.get());
    auto l = marks.List();
    return l.ok() && l->empty();
  }

  // Every acked entry from every replica the final metadata names, each
  // bookie asked directly; every write set on two racks.
  void CheckReplicasAndRacks(const std::string& gone) {
    std::map<std::string, std::unique_ptr<client::BookieAdmin>> admins;
    for (int i = 0; i < cluster->size(); ++i) {
      auto a = client::BookieAdmin::Connect(
          cluster->id(i),
          cluster->address(i) + ":" + std::to_string(cluster->grpc_port(i)),
          client::TlsClientOptions{});
      REQUIRE(a.ok());
      admins[cluster->id(i)] = std::move(*a);
    }
    int64_t reads = 0;
    for (const auto& [id, entries] : acked) {
      auto md = store->ReadLedger(id);
      REQUIRE(md.ok());
      const auto& m = md->value;
      INFO("ledger " << id);
      REQUIRE(m.state() == proto::CLOSED);
      if (!entries.empty()) REQUIRE(m.last_entry_id() >= *entries.rbegin());
      for (int s = 0; s < m.segments_size(); ++s) {
        const auto& seg = m.segments(s);
        std::set<std::string> racks_ok;
        const int n = seg.bookies_size();
        for (int q = 0; q < n; ++q) {
          std::set<std::string> racks;
          for (int i = 0; i < m.write_quorum_size(); ++i) {
            const std::string& b = seg.bookies((q + i) % n);
            CHECK(b != gone);
            racks.insert(kRacks[cluster->IndexOf(b) % kRacks.size()]);
          }
          CHECK(racks.size() >= 2);
        }
      }
      for (int64_t e : entries) {
        int s = m.segments_size() - 1;
        while (s > 0 && m.segments(s).first_entry_id() > e) --s;
        const auto& seg = m.segments(s);
        const int n = seg.bookies_size();
        for (int i = 0; i < m.write_quorum_size(); ++i) {
          const std::string& b = seg.bookies((e + i) % n);
          auto got = admins[b]->ReadEntry(id, e, client::DigestType::kCrc32c,
                                          absl::Seconds(5));
          INFO("entry " << e << " on " << b << ": " << got.status().ToString());
          REQUIRE(got.ok());
          REQUIRE(got->payload == Payload(id, e));
          ++reads;
        }
      }
    }
    INFO("replica reads " << reads);
    CHECK(reads > 0);
  }

  bk::testing::TempDir dir;
  std::string uri;
  std::unique_ptr<test::BookieCluster> cluster;
  std::unique_ptr<metadata::MetadataStore> store;
  std::unique_ptr<client::Client> client;
  std::string password_file;
  std::map<int64_t, std::set<int64_t>> acked;
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
  for (int i = 0; i < 10; ++i) f.ClosedLedger(40);
  REQUIRE(PollUntil(
      [&] { return !CurrentAuditor(f.store.get()).value_or("").empty(); }));
  const std::string gone = f.cluster->id(3);
  REQUIRE(f.Names(gone));
  REQUIRE(f.cluster->Kill(3).ok());
  REQUIRE(PollUntil([&] { return !f.Names(gone) && f.NothingMarked(); },
                    absl::Seconds(120), absl::Milliseconds(500)));
  f.CheckReplicasAndRacks(gone);
}

TEST_CASE(
    "a worker killed mid-copy leaves its ledger marked; another "
    "worker repairs it, nothing lost or doubled",
    "[integration][autorecovery][slow]") {
  INFO("seed " << Seed());
  Fixture f("midcopy");
  for (int i = 0; i < 6; ++i) f.ClosedLedger(200);
  const std::string gone = f.cluster->id(3);
  REQUIRE(f.Names(gone));
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
  for (int i = 0; i < 6; ++i) f.ClosedLedger(40);
  auto bkctl = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--metadata-uri", f.uri});
    auto r = bk::testing::RunProcess(BKCTL_PATH, args, absl::Seconds(120));
    REQUIRE(r.ok());
    return *r;
  };
  auto none = bkctl({"whoisauditor", "--json"});
  CHECK(none.exit.exit_code == 1);
  CHECK(none.out.find("\"auditor\": null") != std::string::npos);

  const std::string gone = f.cluster->id(3);
  REQUIRE(f.Names(gone));
  REQUIRE(f.cluster->Kill(3).ok());
  // A mark by hand, as an auditor would make it: listed.
  UnderreplicationManager marks(f.store.get());
  REQUIRE(marks.Mark(0, {gone}, absl::Now()).ok());
  auto listed = bkctl({"listunderreplicated", "--json"});
  INFO(listed.err);
  CHECK(listed.exit.exit_code == 0);
  CHECK(listed.out.find("\"ledger\": 0") != std::string::npos);
  CHECK(listed.out.find(gone) != std::string::npos);

  auto recovered = bkctl({"recover", "--bookie", gone, "--password-file",
                          f.password_file, "--json"});
  INFO(recovered.out << recovered.err);
  CHECK(recovered.exit.exit_code == 0);
  CHECK(recovered.out.find("\"still_on_bookie\": []") != std::string::npos);
  CHECK_FALSE(f.Names(gone));
  CHECK(f.NothingMarked());
  CHECK(bkctl({"listunderreplicated", "--json"}).out == "[]\n");
  f.CheckReplicasAndRacks(gone);

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
