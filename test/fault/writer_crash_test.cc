// Item 2 of issue 11: the writer crashes. The writer is a child process
// (fault_writer, E3/WQ3/AQ2) streaming acknowledged entries to the test
// through a pipe.
//
// 1. SIGKILL mid-stream at a seeded point: a recovering reader closes the
//    ledger at or after the last acknowledged entry and reads every one.
// 2. Fencing race: the writer is paused (SIGSTOP) mid-stream, a reader
//    recovers the ledger, the writer is resumed (SIGCONT): its later adds
//    fail (fenced, kFailedPrecondition) and no entry beyond the closed end
//    is ever acknowledged to it.
//
// BK_FAULT_RUNS sets the seeded runs of each (default 5).

#include <signal.h>

#include <random>

#include "absl/strings/match.h"
#include "test/fault/client_fault_util.h"
#include "test/fault/figures.h"

namespace bk::fault {
namespace {

int Runs() {
  const char* env = getenv("BK_FAULT_RUNS");
  return env != nullptr ? std::atoi(env) : 5;
}

TEST_CASE(
    "a SIGKILLed writer's ledger is recovered at or after its last "
    "acknowledged entry",
    "[fault][writer_crash]") {
  const int runs = Runs();
  std::mt19937_64 rng(Seed());
  const std::string uri = Uri("writer-kill");
  auto cluster = StartCluster(uri, 4, 2000);
  std::map<int64_t, int64_t> record;
  int closed_ok = 0;
  int64_t min_margin = INT64_MAX;
  for (int run = 0; run < runs; ++run) {
    const int64_t at = std::uniform_int_distribution<int64_t>(20, 600)(rng);
    ChildWriter w(uri, cluster->dir(0) + "/../writer.log", 0, 1, 32);
    REQUIRE(w.WaitFor(
        [&](const auto& ev) {
          int64_t n = 0;
          for (const auto& e : ev) n += e.kind == "ack";
          return n >= at;
        },
        absl::Seconds(60)));
    w.Kill();
    const auto acked = w.MaxAcked();
    REQUIRE(acked.size() == 1);
    record.insert(acked.begin(), acked.end());
    auto c = client::Client::Create(Options(uri));
    REQUIRE(c.ok());
    const int64_t id = acked.begin()->first;
    auto r = (*c)->OpenLedger(id, "pw", true);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    const int64_t last = (*r)->LastAddConfirmed();
    UNSCOPED_INFO("run " << run << ": ledger " << id << " last ack "
                         << acked.begin()->second << " closed at " << last);
    if (last >= acked.begin()->second) ++closed_ok;
    min_margin = std::min(min_margin, last - acked.begin()->second);
    r->reset();
  }
  const Verified v = VerifyAll(uri, record);
  INFO(v.first_error);
  Figures f("writer_crash_kill");
  const std::string item = "2 writer SIGKILL";
  f.Add(item, "ledgers closed at or after the last ack",
        std::to_string(closed_ok) + "/" + std::to_string(runs) +
            " (min margin " + std::to_string(min_margin) + ")",
        "all", closed_ok == runs);
  f.Add(item, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked), "0",
        v.lost == 0 && v.acked > 0);
  f.Add(item, "corrupt payloads read", std::to_string(v.corrupt), "0",
        v.corrupt == 0);
  f.Write();
  CHECK(closed_ok == runs);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
}

TEST_CASE("recovery fences a paused old writer: no ack beyond the closed end",
          "[fault][writer_crash]") {
  const int runs = Runs();
  std::mt19937_64 rng(Seed() + 1);
  const std::string uri = Uri("writer-fence");
  auto cluster = StartCluster(uri, 4, 2000);
  std::map<int64_t, int64_t> record;
  int fenced = 0, closed_ok = 0;
  int64_t beyond = 0;
  for (int run = 0; run < runs; ++run) {
    const int64_t at = std::uniform_int_distribution<int64_t>(20, 600)(rng);
    ChildWriter w(uri, cluster->dir(0) + "/../writer.log", 0, 1, 32);
    REQUIRE(w.WaitFor(
        [&](const auto& ev) {
          int64_t n = 0;
          for (const auto& e : ev) n += e.kind == "ack";
          return n >= at;
        },
        absl::Seconds(60)));
    w.Stop();
    // What was read so far: acks still in the pipe are read later and
    // counted below all the same.
    const auto before = w.MaxAcked();
    REQUIRE(before.size() == 1);
    const int64_t id = before.begin()->first;
    auto c = client::Client::Create(Options(uri));
    REQUIRE(c.ok());
    auto r = (*c)->OpenLedger(id, "pw", true);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    const int64_t last = (*r)->LastAddConfirmed();
    r->reset();
    w.Signal(SIGCONT);
    // The old writer goes on appending; it must be told it is fenced.
    const bool stopped = w.WaitFor(
        [](const auto& ev) {
          for (const auto& e : ev)
            if (e.kind == "stopped" || e.kind == "error") return true;
          return false;
        },
        absl::Seconds(30));
    bool saw_fence = false;
    int64_t max_ack = -1;
    for (const auto& e : w.Events()) {
      if (e.kind == "fail" && absl::StrContains(e.rest, "FAILED_PRECONDITION"))
        saw_fence = true;
      if (e.kind == "ack") {
        max_ack = std::max(max_ack, e.entry);
        if (e.entry > last) ++beyond;
      }
    }
    UNSCOPED_INFO("run " << run << ": ledger " << id << " acked before pause "
                         << before.begin()->second << ", closed at " << last
                         << ", max ack " << max_ack << ", stopped " << stopped);
    if (stopped && saw_fence) ++fenced;
    if (last >= before.begin()->second) ++closed_ok;
    record[id] = max_ack;
    w.Kill();
  }
  const Verified v = VerifyAll(uri, record);
  INFO(v.first_error);
  Figures f("writer_crash_fence");
  const std::string item = "2 fencing race (SIGSTOP writer, recover, SIGCONT)";
  f.Add(item, "old writer fenced (later adds kFailedPrecondition)",
        std::to_string(fenced) + "/" + std::to_string(runs), "all",
        fenced == runs);
  f.Add(item, "acks beyond the closed end", std::to_string(beyond), "0",
        beyond == 0);
  f.Add(item, "closed at or after the last ack before the pause",
        std::to_string(closed_ok) + "/" + std::to_string(runs), "all",
        closed_ok == runs);
  f.Add(item, "acknowledged entries lost",
        std::to_string(v.lost) + " of " + std::to_string(v.acked), "0",
        v.lost == 0 && v.acked > 0);
  f.Write();
  CHECK(fenced == runs);
  CHECK(beyond == 0);
  CHECK(closed_ok == runs);
  CHECK(v.lost == 0);
  CHECK(v.corrupt == 0);
}

}  // namespace
}  // namespace bk::fault
