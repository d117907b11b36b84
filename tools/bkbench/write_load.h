// WriteLoad: the write side of every bkbench run. It creates `ledgers`
// ledgers on a Client and appends fixed-size entries round-robin over them
// at a target rate (or as fast as a window of unconfirmed adds allows) for
// a duration, recording add latency (Append -> confirmed) overall and per
// second.
//
// Each payload starts with the wall time of its Append in nanoseconds (8
// bytes, little-endian; AddedAtNanos reads it back), so a reader in the same
// process measures entry added -> entry read.
//
// Threads: Run() blocks its caller, which issues the adds; completions
// arrive on the client's completion thread. LastAddConfirmed(), ledger_id()
// and Stop() may be called from any thread while Run() runs.
// Lifetime: must be destroyed before the Client.

#ifndef BK_TOOLS_BKBENCH_WRITE_LOAD_H_
#define BK_TOOLS_BKBENCH_WRITE_LOAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "tools/bkbench/histogram.h"

namespace bk::bkbench {

struct WriteLoadOptions {
  int ledgers = 4;
  int64_t entry_size = 1024;  // bytes, >= 8 (the timestamp)
  double rate = 0;            // entries/s over all ledgers; 0: as fast as
                              // max_in_flight_per_ledger allows
  absl::Duration duration = absl::Seconds(10);
  int ensemble = 3;
  int write_quorum = 2;
  int ack_quorum = 2;
  std::string password = "bkbench";
  int64_t max_in_flight_per_ledger = 2000;
  bool progress = false;      // a line per second on stderr
  bool close_ledgers = true;  // Close() every ledger at the end of Run()
  // Ledger 0 takes this many adds for each one of any other ledger (the
  // total rate unchanged): one hot topic among quiet ones. 1: all equal.
  int hot_ledger_x = 1;
};

// One second of the run.
struct WriteSecond {
  double t_s = 0;  // end of the second, from the start of Run()
  int64_t acked = 0;
  int64_t errors = 0;
  double p50_ms = -1;
  double p99_ms = -1;
};

struct WriteResult {
  int64_t acked = 0;
  int64_t failed = 0;
  std::string first_error;
  double seconds = 0;  // wall time of the issuing phase and the drain
  LatencyHistogram latency;
  std::vector<WriteSecond> series;
  std::vector<int64_t> ledger_ids;
  std::vector<int64_t> last_entry;  // per ledger, after the run
  double entries_per_second() const {
    return seconds > 0 ? static_cast<double>(acked) / seconds : 0;
  }
};

class WriteLoad {
 public:
  // Creates the ledgers. `client` must outlive the WriteLoad.
  // The options ledger `i` (0 .. options.ledgers - 1) is created with: E,
  // WQ, AQ, password and, for a paced run, its share of the rate as its
  // expected write rate (the hint a broker would give).
  static client::CreateLedgerOptions LedgerOptions(
      const WriteLoadOptions& options, int i);

  static absl::StatusOr<std::unique_ptr<WriteLoad>> Create(
      client::Client* client, const WriteLoadOptions& options);
  ~WriteLoad();

  // Appends until the duration has passed or Stop(), waits for every add,
  // closes the ledgers if asked. Call once.
  WriteResult Run();
  void Stop() { stop_.store(true); }

  int ledgers() const { return static_cast<int>(writers_.size()); }
  int64_t ledger_id(int i) const { return ids_[i]; }
  int64_t LastAddConfirmed(int i) const {
    return writers_[i]->LastAddConfirmed();
  }

 private:
  WriteLoad(const WriteLoadOptions& options,
            std::vector<std::unique_ptr<client::LedgerWriter>> writers);
  void OnAdded(absl::Time started, const absl::StatusOr<int64_t>& r);
  // Which ledger the n-th add goes to: ledger 0 hot_ledger_x times, then
  // each other ledger once, round and round.
  size_t LedgerOfAdd(int64_t n) const;
  void Tick(int second, absl::Time start);

  // Constant after construction.
  const WriteLoadOptions options_;
  std::vector<std::unique_ptr<client::LedgerWriter>> writers_;
  std::vector<int64_t> ids_;

  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  int64_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t acked_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_acked_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_failed_ ABSL_GUARDED_BY(mu_) = 0;
  std::string first_error_ ABSL_GUARDED_BY(mu_);
  LatencyHistogram total_ ABSL_GUARDED_BY(mu_);
  LatencyHistogram second_ ABSL_GUARDED_BY(mu_);
  std::vector<WriteSecond> series_ ABSL_GUARDED_BY(mu_);
};

// The Append time stamped into a payload by WriteLoad; 0 if too short.
int64_t AddedAtNanos(absl::string_view payload);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_WRITE_LOAD_H_
