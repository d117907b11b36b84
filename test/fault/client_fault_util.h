// Shared pieces of the fault suite's client tests (items 1, 2, 6, 8): a real
// ZooKeeper, a cluster of real bookies, the seed, the verification of every
// acknowledged entry by a recovering reader, and a writer in a child process
// (fault_writer) whose events the test reads from a pipe.

#ifndef BK_TEST_FAULT_CLIENT_FAULT_UTIL_H_
#define BK_TEST_FAULT_CLIENT_FAULT_UTIL_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/client.h"
#include "test/fault/fault_payload.h"
#include "test/support/bookie_cluster.h"
#include "test/support/zk_server.h"

namespace bk::fault {

inline test::ZkServer& Zk() { return test::SharedZkServer(); }

inline uint64_t Seed() {
  const char* env = getenv("BK_FAULT_SEED");
  static const uint64_t seed = [&] {
    const uint64_t s =
        env != nullptr ? std::stoull(env) : std::random_device{}();
    std::printf("seed=%llu (set BK_FAULT_SEED to repeat)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

inline std::string Uri(const std::string& name) {
  return "zk://" + Zk().hosts() + "/fault/" + name;
}

inline std::unique_ptr<test::BookieCluster> StartCluster(
    const std::string& uri, int n, int zk_timeout_ms,
    std::vector<std::string> extra_flags = {}) {
  test::BookieCluster::Options o;
  o.bookie_binary = BK_BOOKIE_BINARY;
  o.metadata_uri = uri;
  o.bookies = n;
  o.racks = {"/region/rack0", "/region/rack1"};
  o.zk_timeout_ms = zk_timeout_ms;
  o.extra_flags = std::move(extra_flags);
  auto c = test::BookieCluster::Start(o);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  return std::move(*c);
}

inline client::ClientOptions Options(const std::string& uri) {
  client::ClientOptions o;
  o.metadata_service_uri = uri;
  o.add_entry_timeout = absl::Seconds(2);
  o.read_entry_timeout = absl::Seconds(2);
  o.get_bookie_info_interval = absl::Milliseconds(300);
  o.get_bookie_info_timeout = absl::Milliseconds(500);
  // A bookie killed again and again must not be kept out for half an hour.
  o.bookie_quarantine_time = absl::Seconds(5);
  o.seed = Seed();
  return o;
}

// What a recovering reader found, against the writer's acknowledged record
// (ledger -> highest acknowledged entry; entries 0..max are acknowledged,
// completions being in entry order).
struct Verified {
  int ledgers = 0;
  int64_t acked = 0;    // acknowledged entries checked
  int64_t read = 0;     // entries read back
  int64_t lost = 0;     // acknowledged, not readable
  int64_t corrupt = 0;  // read with a wrong payload
  int open_failures = 0;
  std::map<int64_t, int64_t> last;  // ledger -> closed last entry
  std::string first_error;
};

inline Verified VerifyAll(const std::string& uri,
                          const std::map<int64_t, int64_t>& max_acked,
                          const std::string& password = "pw") {
  Verified v;
  auto c = client::Client::Create(Options(uri));
  REQUIRE(c.ok());
  auto ids = (*c)->ListLedgers();
  REQUIRE(ids.ok());
  std::map<int64_t, bool> listed;
  for (int64_t id : *ids) listed[id] = true;
  for (const auto& [id, max] : max_acked) {
    v.acked += max + 1;
    if (!listed.count(id) && max >= 0) {
      v.lost += max + 1;
      if (v.first_error.empty())
        v.first_error = "ledger " + std::to_string(id) + " not listed";
    }
  }
  for (int64_t id : *ids) {
    ++v.ledgers;
    const int64_t want = max_acked.count(id) != 0 ? max_acked.at(id) : -1;
    absl::StatusOr<std::unique_ptr<client::LedgerReader>> r;
    for (int attempt = 0; attempt < 5; ++attempt) {  // recovery may be retried
      r = (*c)->OpenLedger(id, password, /*recover=*/true);
      if (r.ok()) break;
      std::this_thread::sleep_for(std::chrono::seconds(1));  // bounded retry
    }
    if (!r.ok()) {
      ++v.open_failures;
      v.lost += want + 1;
      if (v.first_error.empty()) v.first_error = r.status().ToString();
      continue;
    }
    const int64_t lac = (*r)->LastAddConfirmed();
    v.last[id] = lac;
    int64_t next = 0;
    if (lac >= 0) {
      auto it = (*r)->Read(0, lac);
      client::LedgerEntry e;
      while (it->Next(&e)) {
        ++v.read;
        if (e.entry_id != next || e.payload != FaultPayload(id, e.entry_id))
          ++v.corrupt;
        next = e.entry_id + 1;
      }
      if (!it->status().ok() && v.first_error.empty())
        v.first_error = it->status().ToString();
    }
    if (want >= next) v.lost += want - next + 1;
  }
  return v;
}

// A fault_writer child process; its stdout lines are parsed on a thread.
class ChildWriter {
 public:
  struct Event {
    absl::Time at;
    std::string kind;  // ledger, ack, fail, closed, stopped, error
    int64_t ledger = -1, entry = -1;
    std::string rest;
  };

  ChildWriter(const std::string& uri, const std::string& log_path,
              int64_t per_ledger, int64_t ledgers, int64_t window) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t parent = getpid();
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(3);
      dup2(fds[1], 1);
      const int log =
          open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (log >= 0) dup2(log, 2);
      close(fds[0]);
      close(fds[1]);
      const std::string a = std::to_string(per_ledger),
                        b = std::to_string(ledgers), w = std::to_string(window);
      execl(BK_FAULT_WRITER, BK_FAULT_WRITER, uri.c_str(), "pw", a.c_str(),
            b.c_str(), w.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
    reader_ = std::thread([this] { ReadLoop(); });
  }
  ~ChildWriter() {
    if (pid_ > 0) Kill();
    reader_.join();
    close(fd_);
  }

  pid_t pid() const { return pid_; }
  void Signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  // SIGSTOP, and returns once the child is stopped (it cannot ignore it):
  // from then on it writes nothing more until SIGCONT.
  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGSTOP);
    int status = 0;
    while (waitpid(pid_, &status, WUNTRACED) < 0 && errno == EINTR) {
    }
  }
  // SIGKILL and reap (the pipe then ends and the reader thread stops).
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // Waits until `pred(events)` holds; false after `timeout`.
  template <typename Pred>
  bool WaitFor(Pred pred, absl::Duration timeout) {
    absl::MutexLock l(&mu_);
    auto cond = [&] { return pred(events_) || eof_; };
    mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
    return pred(events_);
  }
  std::vector<Event> Events() {
    absl::MutexLock l(&mu_);
    return events_;
  }
  // Ledger -> highest acknowledged entry (-1: none).
  std::map<int64_t, int64_t> MaxAcked() {
    absl::MutexLock l(&mu_);
    std::map<int64_t, int64_t> m;
    for (const auto& e : events_) {
      if (e.kind == "ledger") m.emplace(e.ledger, -1);
      if (e.kind == "ack") m[e.ledger] = std::max(m[e.ledger], e.entry);
    }
    return m;
  }
  int64_t Count(const std::string& kind) {
    absl::MutexLock l(&mu_);
    int64_t n = 0;
    for (const auto& e : events_) n += e.kind == kind;
    return n;
  }

 private:
  void ReadLoop() {
    std::string buf;
    char chunk[4096];
    while (true) {
      const ssize_t n = read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      buf.append(chunk, n);
      size_t pos;
      while ((pos = buf.find('\n')) != std::string::npos) {
        std::istringstream in(buf.substr(0, pos));
        buf.erase(0, pos + 1);
        Event ev;
        ev.at = absl::Now();
        in >> ev.kind;
        if (ev.kind == "ledger") {
          in >> ev.ledger;
        } else if (ev.kind == "ack" || ev.kind == "fail" ||
                   ev.kind == "closed") {
          in >> ev.ledger >> ev.entry;
        }
        std::getline(in, ev.rest);
        absl::MutexLock l(&mu_);
        events_.push_back(std::move(ev));
      }
    }
    absl::MutexLock l(&mu_);
    eof_ = true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  std::thread reader_;
  absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  bool eof_ ABSL_GUARDED_BY(mu_) = false;
};

inline std::string Ms(absl::Duration d) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.0f ms", absl::ToDoubleMilliseconds(d));
  return b;
}

}  // namespace bk::fault

#endif  // BK_TEST_FAULT_CLIENT_FAULT_UTIL_H_
