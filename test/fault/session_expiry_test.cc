// Item 6 of issue 11: ZooKeeper session expiry, for real.
//
// Bookie: a bookie is paused (SIGSTOP) past its session timeout, so the
// server expires its session and its registration goes; it is resumed: it
// learns of the expiry, opens a new session and registers again. A writer
// (E3/WQ3/AQ2, 5 bookies) runs throughout; every acknowledged entry is read
// back by a recovering reader.
//
// Client: the writer process (fault_writer, a new ledger every 300 entries)
// is paused past its session timeout (the test server clamps sessions to
// 2 s), then resumed: it must go on creating, writing and closing ledgers on
// a new session. The server's log shows the expiry ("Expiring session").

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "metadata/metadata_store.h"
#include "test/fault/client_fault_util.h"
#include "test/fault/figures.h"
#include "test/support/bookie_process.h"

namespace bk::fault {
namespace {

int ExpiriesInZkLog() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(Zk().dir())) {
    if (e.path().extension() != ".log") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line))
      n += line.find("Expiring session") != std::string::npos;
  }
  return n;
}

bool Registered(metadata::MetadataStore& store, const std::string& id) {
  auto set = store.ListBookies();
  if (!set.ok()) return false;
  for (const auto& b : set->writable)
    if (b.bookie_id() == id) return true;
  for (const auto& b : set->readonly)
    if (b.bookie_id() == id) return true;
  return false;
}

TEST_CASE("a bookie whose session expired registers again and loses no entry",
          "[fault][session]") {
  const std::string uri = Uri("session-bookie");
  auto cluster = StartCluster(uri, 5, 2000);
  auto store = metadata::Open(uri);
  REQUIRE(store.ok());
  auto client = client::Client::Create(Options(uri));
  REQUIRE(client.ok());
  auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                    .write_quorum = 3,
                                    .ack_quorum = 2,
                                    .password = "pw"});
  REQUIRE(w.ok());
  const int64_t id = (*w)->ledger_id();

  absl::Mutex mu;
  int64_t max_acked = -1, in_flight = 0, failed = 0;
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int64_t e = 0; !stop; ++e) {
      {
        absl::MutexLock l(&mu);
        auto room = [&] { return in_flight < 32; };
        mu.Await(absl::Condition(&room));
        ++in_flight;
      }
      (*w)->Append(FaultPayload(id, e), [&, e](absl::StatusOr<int64_t> r) {
        absl::MutexLock l(&mu);
        --in_flight;
        if (r.ok() && *r == e)
          max_acked = e;
        else
          ++failed;
      });
    }
    absl::MutexLock l(&mu);
    auto drained = [&] { return in_flight == 0; };
    mu.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(60));
  });

  // The victim: a bookie of the ledger's ensemble.
  auto md = (*store)->ReadLedger(id);
  REQUIRE(md.ok());
  const std::string victim_id = md->value.segments(0).bookies(0);
  const int victim = cluster->IndexOf(victim_id);
  auto acked_past = [&](int64_t n) {
    return bk::testing::PollUntil(
        [&] {
          absl::MutexLock l(&mu);
          return max_acked >= n;
        },
        absl::Seconds(30));
  };
  REQUIRE(acked_past(500));  // the writer is in full flow
  const int expiries_before = ExpiriesInZkLog();
  REQUIRE(cluster->Suspend(victim).ok());
  const absl::Time paused = absl::Now();
  const bool gone = bk::testing::PollUntil(
      [&] { return !Registered(**store, victim_id); }, absl::Seconds(15));
  const absl::Duration gone_after = absl::Now() - paused;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  REQUIRE(cluster->Resume(victim).ok());
  const absl::Time resumed = absl::Now();
  const bool back = bk::testing::PollUntil(
      [&] { return Registered(**store, victim_id); }, absl::Seconds(30));
  const absl::Duration back_after = absl::Now() - resumed;
  const bool ready = bk::testing::PollUntil(
      [&] { return cluster->Ready(victim); }, absl::Seconds(10));
  const int expiries = ExpiriesInZkLog() - expiries_before;
  int64_t acked_at_resume;
  {
    absl::MutexLock l(&mu);
    acked_at_resume = max_acked;
  }
  REQUIRE(acked_past(acked_at_resume + 500));  // writes go on
  stop = true;
  writer.join();
  REQUIRE((*w)->Close().ok());
  w->reset();
  client->reset();
  const Verified v = VerifyAll(uri, {{id, max_acked}});
  INFO(v.first_error);

  Figures f("session_bookie");
  const std::string item = "6 bookie session expiry";
  f.Add(item, "registration gone while paused",
        gone ? "yes after " + Ms(gone_after) : "no", "yes", gone);
  f.Add(item, "re-registered after resume",
        back ? "yes after " + Ms(back_after) : "no", "yes", back && ready);
  f.Add(item, "sessions expired by the server", std::to_string(expiries),
        ">= 1", expiries >= 1);
  f.Add(item, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked), "0",
        v.lost == 0 && v.acked > 0);
  f.Add(item, "failed adds", std::to_string(failed), "0", failed == 0);
  f.Write();
  CHECK(gone);
  CHECK(back);
  CHECK(ready);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
  CHECK(failed == 0);
}

TEST_CASE("a client whose session expired keeps working and loses no entry",
          "[fault][session]") {
  const std::string uri = Uri("session-client");
  auto cluster = StartCluster(uri, 4, 4000);
  ChildWriter w(uri, cluster->dir(0) + "/../writer.log", 300, 0, 16);
  auto closed = [](int n) {
    return [n](const std::vector<ChildWriter::Event>& ev) {
      int c = 0;
      for (const auto& e : ev) c += e.kind == "closed";
      return c >= n;
    };
  };
  REQUIRE(w.WaitFor(closed(2), absl::Seconds(60)));
  const int expiries_before = ExpiriesInZkLog();
  w.Signal(SIGSTOP);
  // Paused until the server expires its 2 s session (its log says so).
  bk::testing::PollUntil([&] { return ExpiriesInZkLog() > expiries_before; },
                         absl::Seconds(30));
  const int expiries = ExpiriesInZkLog() - expiries_before;
  const int64_t closed_before = w.Count("closed");
  w.Signal(SIGCONT);
  const absl::Time resumed = absl::Now();
  const bool goes_on = w.WaitFor(closed(closed_before + 2), absl::Seconds(60));
  const absl::Duration took = absl::Now() - resumed;
  const int64_t failures = w.Count("fail") + w.Count("error");
  w.Kill();
  const Verified v = VerifyAll(uri, w.MaxAcked());
  INFO(v.first_error);

  Figures f("session_client");
  const std::string item = "6 client session expiry";
  f.Add(item, "sessions expired by the server while paused",
        std::to_string(expiries), ">= 1", expiries >= 1);
  f.Add(item, "ledgers created and closed after resume",
        goes_on ? "2 within " + Ms(took) : "no", "yes", goes_on);
  f.Add(item, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked) + " in " +
            std::to_string(v.ledgers) + " ledgers",
        "0", v.lost == 0 && v.acked > 0);
  f.Add(item, "failed adds or calls", std::to_string(failures), "0",
        failures == 0);
  f.Write();
  CHECK(expiries >= 1);
  CHECK(goes_on);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
  CHECK(failures == 0);
}

}  // namespace
}  // namespace bk::fault
