// Workload: a live, paced write load through the client library, as
// `bkctl localcluster` runs it once the cluster is up.
//
// It keeps `ledgers` ledgers open (E/WQ/AQ of the options), appends entries
// of `entry_size` bytes round-robin over them at `rate` entries per second,
// and rolls ledgers in turn (one every roll_every / ledgers) so that the
// placement policy keeps choosing ensembles from fresh load reports. A
// failed add is counted and its ledger rolled at the next tick; nothing in
// the workload ends the process.
//
// Threads: Start() spawns one pacing thread; TakeSecond() and Stop() may be
// called from one other thread. Add callbacks run on the client's
// completion thread and only touch the counters below.
// Lifetime: Stop() (or the destructor) stops pacing and closes every
// ledger; the destructor then destroys the client.

#ifndef BK_TOOLS_BKCTL_WORKLOAD_H_
#define BK_TOOLS_BKCTL_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "metadata/metadata_store.h"

namespace bk::bkctl {

struct WorkloadOptions {
  std::string metadata_uri;
  placement::Weighting weighting = placement::Weighting::kLoad;
  int ledgers = 6;
  // E2/WQ2/AQ2: on the default 5 bookies over 3 racks, a 3-bookie ensemble
  // must take one bookie per rack (each write quorum spans two racks), which
  // pins the lone bookie of the third rack into every ledger; with two, the
  // rack rule leaves the choice to the load weighting.
  int ensemble_size = 2;
  int write_quorum = 2;
  int ack_quorum = 2;
  double rate = 2000;                             // entries per second
  int entry_size = 1024;                          // bytes
  absl::Duration roll_every = absl::Seconds(10);  // per ledger
  int64_t max_outstanding = 20000;  // adds in flight; above, a tick is skipped
};

// What happened since the previous TakeSecond().
struct WorkloadSecond {
  double seconds = 0;   // length of the interval
  int64_t acked = 0;    // adds confirmed
  int64_t failed = 0;   // adds failed
  int64_t skipped = 0;  // adds not issued (too many in flight)
  double p50_ms = -1, p99_ms = -1, max_ms = -1;  // -1: no adds
  int64_t rolled = 0;                            // ledgers rolled
  int64_t outstanding = 0;                       // adds in flight now
  // Bookie id -> replicas of current ledgers (last segment) it holds.
  std::map<std::string, int> spread;
  std::string last_error;  // the latest failure, "" if none
};

class Workload {
 public:
  static absl::StatusOr<std::unique_ptr<Workload>> Start(WorkloadOptions o);
  ~Workload();

  WorkloadSecond TakeSecond();
  // Stops pacing, waits for in-flight adds, closes the ledgers; the client
  // lives on until the destructor. Idempotent.
  void Stop();

 private:
  struct Slot {
    std::shared_ptr<client::LedgerWriter> writer;
    absl::Time created;
    std::shared_ptr<std::atomic<bool>> broken;
  };
  explicit Workload(WorkloadOptions o) : options_(std::move(o)) {}
  absl::StatusOr<Slot> NewSlot();
  void Roll(size_t i);
  void Pace();
  void Issue(Slot& slot);

  const WorkloadOptions options_;
  std::string payload_;
  std::unique_ptr<client::Client> client_;
  std::unique_ptr<metadata::MetadataStore> store_;
  std::thread pacer_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> outstanding_{0};

  std::mutex slots_mu_;  // slots_, held by the pacer and TakeSecond
  std::vector<Slot> slots_;

  std::mutex mu_;  // guards the counters below
  std::vector<int64_t> latencies_us_;
  int64_t acked_ = 0, failed_ = 0, skipped_ = 0, rolled_ = 0;
  std::string last_error_;
  absl::Time last_take_ = absl::Now();
};

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_WORKLOAD_H_
