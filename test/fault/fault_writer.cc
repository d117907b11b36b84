// fault_writer: a small writer process for the fault suite (items 2 and 6),
// so a test can SIGKILL, SIGSTOP and SIGCONT a real writer.
//
//   fault_writer <metadata uri> <password> <entries per ledger (0: no end)>
//                <ledgers (0: no end)> <window>
//
// Creates a ledger (E3/WQ3/AQ2), appends FaultPayload(ledger, e) with
// `window` adds in flight, closes it after `entries per ledger`, and starts
// the next. One line per event on stdout, flushed at once:
//   ledger L | ack L E | fail L E <status> | closed L <last> | stopped
// After the first failed add it stops appending, waits for the adds in
// flight (bounded), prints "stopped" and exits 0. Exits with _exit: the
// test only needs the lines.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/synchronization/mutex.h"
#include "client/client.h"
#include "test/fault/fault_payload.h"

namespace {

absl::Mutex out_mu;

void Line(const std::string& s) {
  absl::MutexLock l(&out_mu);
  std::fputs((s + "\n").c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr,
                 "usage: fault_writer URI PASSWORD ENTRIES LEDGERS WINDOW\n");
    return 2;
  }
  const std::string uri = argv[1], password = argv[2];
  const int64_t per_ledger = std::atoll(argv[3]);
  const int64_t ledgers = std::atoll(argv[4]);
  const int64_t window = std::atoll(argv[5]);

  bk::client::ClientOptions o;
  o.metadata_service_uri = uri;
  o.add_entry_timeout = absl::Seconds(2);
  o.read_entry_timeout = absl::Seconds(2);
  o.get_bookie_info_interval = absl::Milliseconds(500);
  auto client = bk::client::Client::Create(o);
  if (!client.ok()) {
    Line("error " + client.status().ToString());
    _exit(1);
  }
  absl::Mutex mu;
  int64_t in_flight = 0;
  bool failed = false;
  for (int64_t l = 0; ledgers == 0 || l < ledgers; ++l) {
    auto w = (*client)->CreateLedger({.ensemble_size = 3,
                                      .write_quorum = 3,
                                      .ack_quorum = 2,
                                      .password = password});
    if (!w.ok()) {
      Line("error " + w.status().ToString());
      _exit(1);
    }
    const int64_t id = (*w)->ledger_id();
    Line("ledger " + std::to_string(id));
    for (int64_t e = 0; per_ledger == 0 || e < per_ledger; ++e) {
      {
        absl::MutexLock lock(&mu);
        auto room = [&] { return failed || in_flight < window; };
        mu.Await(absl::Condition(&room));
        if (failed) break;
        ++in_flight;
      }
      (*w)->Append(
          bk::fault::FaultPayload(id, e),
          [&, id, e](absl::StatusOr<int64_t> r) {
            if (r.ok() && *r == e) {
              Line("ack " + std::to_string(id) + " " + std::to_string(e));
            } else {
              Line("fail " + std::to_string(id) + " " + std::to_string(e) +
                   " " +
                   (r.ok() ? "wrong id " + std::to_string(*r)
                           : r.status().ToString()));
            }
            absl::MutexLock lock(&mu);
            --in_flight;
            if (!r.ok()) failed = true;
          });
    }
    {
      absl::MutexLock lock(&mu);
      auto drained = [&] { return in_flight == 0; };
      mu.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(30));
      if (failed) break;
    }
    auto s = (*w)->Close();
    if (!s.ok()) {
      Line("error close " + s.ToString());
      _exit(1);
    }
    Line("closed " + std::to_string(id) + " " +
         std::to_string((*w)->LastAddConfirmed()));
  }
  Line("stopped");
  _exit(0);
}
