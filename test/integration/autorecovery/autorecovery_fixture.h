// The autorecovery integration tests' shared parts: a ZooKeeper root per
// test, five real bookie processes over three racks, a client, ledgers
// whose acknowledged entries are recorded, and the checks that every
// acknowledged entry is on every replica the metadata names.

#ifndef BK_TEST_INTEGRATION_AUTORECOVERY_AUTORECOVERY_FIXTURE_H_
#define BK_TEST_INTEGRATION_AUTORECOVERY_AUTORECOVERY_FIXTURE_H_

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "autorecovery/ledgers_on_bookie.h"
#include "autorecovery/underreplication.h"
#include "client/bookie_admin.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "test/support/bookie_cluster.h"
#include "test/support/bookie_process.h"
#include "test/support/temp_dir.h"
#include "test/support/test_seed.h"
#include "test/support/zk_server.h"

namespace bk::autorecovery {

inline uint64_t Seed() { return bk::testing::TestSeed(); }

// How many times `needle` occurs in the file at `path` (a process's log).
inline int CountInFile(const std::string& path, const std::string& needle) {
  std::stringstream read;
  read << std::ifstream(path).rdbuf();
  const std::string text = read.str();
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

inline const std::vector<std::string> kRacks = {
    "/region/rack0", "/region/rack1", "/region/rack2"};

inline std::string Uri(const std::string& name) {
  return "zk://" + test::SharedZkServer().hosts() + "/autorecovery-it/" + name;
}

inline std::string Payload(int64_t ledger, int64_t e) {
  std::string p =
      "ledger " + std::to_string(ledger) + " entry " + std::to_string(e) + " ";
  p.resize(300, static_cast<char>('a' + (ledger + e) % 26));
  return p;
}

inline client::ClientOptions ClientOpts(const std::string& uri) {
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

  // `at_least` closed ledgers of `n` entries, then more until one names
  // `bookie`. Placement is seeded random over the racks, so a few ledgers
  // can miss a given bookie (six E3 ledgers miss one of a two-bookie rack
  // with probability 1/64); a test that then kills that bookie needs it
  // to hold something.
  void ClosedLedgersNaming(const std::string& bookie, int at_least, int n) {
    for (int i = 0; i < at_least; ++i) ClosedLedger(n);
    for (int extra = 0; !Names(bookie); ++extra) {
      REQUIRE(extra < 64);
      ClosedLedger(n);
    }
  }

  // Whether any ledger's metadata names `bookie`. A ledger whose metadata
  // cannot be read fails the test rather than being passed over.
  bool Names(const std::string& bookie) {
    auto on = LedgersOnBookie(store.get(), bookie);
    INFO(on.status().ToString());
    REQUIRE(on.ok());
    return !on->empty();
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

}  // namespace bk::autorecovery

#endif  // BK_TEST_INTEGRATION_AUTORECOVERY_AUTORECOVERY_FIXTURE_H_
