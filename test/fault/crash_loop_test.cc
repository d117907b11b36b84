// Item 1 of issue 11, the crash loop: one writer (E3/WQ3/AQ2, real
// ZooKeeper, 5 real bookies) keeps an acknowledged-entry record while a
// seeded schedule SIGKILLs a random bookie at random times and restarts it.
// The writer rolls to a new ledger every few kills (the last one is left
// OPEN, as a crashed writer would); at the end a second client recover-opens
// every ledger and reads every entry back.
//
// BK_FAULT_KILLS sets the number of kills (default 20; the `long` CTest
// entry fault_crash_loop_long runs 200). Figures: acknowledged entries lost
// (0), corrupt payloads (0), restarts succeeded (100 %), restart-to-ready
// time (median, max).

#include <algorithm>
#include <atomic>
#include <random>

#include "test/fault/client_fault_util.h"
#include "test/fault/figures.h"

namespace bk::fault {
namespace {

int Kills() {
  const char* env = getenv("BK_FAULT_KILLS");
  return env != nullptr ? std::atoi(env) : 20;
}

TEST_CASE(
    "crash loop: SIGKILLed and restarted bookies lose no acknowledged "
    "entry",
    "[fault][crash_loop]") {
  const int kills = Kills();
  std::mt19937_64 rng(Seed());
  const std::string uri = Uri("crash-loop-" + std::to_string(kills));
  auto cluster = StartCluster(uri, 5, 1000);
  auto client = client::Client::Create(Options(uri));
  REQUIRE(client.ok());

  absl::Mutex mu;
  std::map<int64_t, int64_t> max_acked;  // the acknowledged record
  int64_t in_flight = 0, failed_adds = 0, wrong_order = 0;
  constexpr int64_t kWindow = 64;
  std::atomic<bool> stop{false};
  std::atomic<int> roll{0};  // kills since the last new ledger
  int ledgers_made = 0, writer_failures = 0;

  // The writer thread: appends until stopped; a new ledger when asked to
  // roll or when the current one failed (an unrecoverable add error).
  std::thread writer([&] {
    while (!stop) {
      bool failed = false;  // outlives w: its destructor may run callbacks
      auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                        .write_quorum = 3,
                                        .ack_quorum = 2,
                                        .password = "pw"});
      if (!w.ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      ++ledgers_made;
      const int64_t id = (*w)->ledger_id();
      {
        absl::MutexLock l(&mu);
        max_acked[id] = -1;
      }
      for (int64_t e = 0; !stop && roll < 3; ++e) {
        {
          absl::MutexLock l(&mu);
          auto room = [&] { return in_flight < kWindow || stop.load(); };
          mu.AwaitWithTimeout(absl::Condition(&room), absl::Seconds(1));
          if (in_flight >= kWindow) {
            --e;
            continue;
          }
          ++in_flight;
        }
        (*w)->Append(
            FaultPayload(id, e), [&, id, e](absl::StatusOr<int64_t> r) {
              absl::MutexLock l(&mu);
              --in_flight;
              if (r.ok() && *r == e) {
                int64_t& last = max_acked.try_emplace(id, -1).first->second;
                if (e != last + 1) ++wrong_order;
                last = std::max(last, e);
              } else {
                ++failed_adds;
                failed = true;
              }
            });
        absl::MutexLock l(&mu);
        if (failed) break;
      }
      {
        absl::MutexLock l(&mu);
        auto drained = [&] { return in_flight == 0; };
        mu.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(60));
        if (failed) ++writer_failures;
      }
      if (roll >= 3) {
        roll = 0;
        (void)(*w)
            ->Close();  // closed; may fail after a fault, recovery closes it
      }
      // Otherwise (stopped): left OPEN for the recovering reader.
    }
  });

  std::vector<double> restart_ms;
  int restarts_ok = 0;
  for (int k = 0; k < kills; ++k) {
    std::uniform_int_distribution<int> wait_ms(100, 1200);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(rng)));
    const int victim = std::uniform_int_distribution<int>(0, 4)(rng);
    REQUIRE(cluster->Kill(victim).ok());
    // Down for a random while, then back (same id, dirs and ports).
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms(rng) / 2));
    const absl::Time t0 = absl::Now();
    const absl::Status s = cluster->Restart(victim);
    if (s.ok()) {
      ++restarts_ok;
      restart_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
    } else {
      UNSCOPED_INFO("restart of bk" << victim << ": " << s.ToString());
    }
    ++roll;
  }
  stop = true;
  writer.join();
  const auto record = [&] {
    absl::MutexLock l(&mu);
    return max_acked;
  }();
  client->reset();

  const Verified v = VerifyAll(uri, record);
  INFO(v.first_error);
  std::sort(restart_ms.begin(), restart_ms.end());
  const double median =
      restart_ms.empty() ? 0 : restart_ms[restart_ms.size() / 2];
  const double max = restart_ms.empty() ? 0 : restart_ms.back();

  const std::string mode = kills >= 200 ? "long" : "short";
  Figures f("crash_loop_" + mode);
  const std::string item = "1 crash loop (" + mode + ")";
  f.Add(item, "bookie SIGKILLs", std::to_string(kills),
        mode == "long" ? ">= 200" : ">= 20",
        kills >= (mode == "long" ? 200 : 20));
  f.Add(item, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked) + " in " +
            std::to_string(v.ledgers) + " ledgers",
        "0", v.lost == 0 && v.acked > 0);
  f.Add(item, "corrupt payloads read", std::to_string(v.corrupt), "0",
        v.corrupt == 0);
  f.Add(item, "restarts succeeded",
        std::to_string(restarts_ok) + "/" + std::to_string(kills), "100 %",
        restarts_ok == kills);
  char rt[64];
  std::snprintf(rt, sizeof(rt), "median %.0f ms, max %.0f ms", median, max);
  f.Add(item, "restart-to-ready (incl. old registration expiry)", rt,
        "reported", true);
  f.Add(item, "failed adds (writer rolled to a new ledger)",
        std::to_string(failed_adds) + " adds, " +
            std::to_string(writer_failures) + " ledgers",
        "reported", true);
  // Completions run in entry order: each ack is one past the previous one.
  f.Add(item, "acks out of entry order", std::to_string(wrong_order), "0",
        wrong_order == 0);
  f.Write();
  CHECK(wrong_order == 0);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
  CHECK(v.open_failures == 0);
  CHECK(restarts_ok == kills);
}

}  // namespace
}  // namespace bk::fault
