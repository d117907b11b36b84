// AckedWriter: the fault suite's in-process writer. A thread appends
// self-checking payloads (fault_payload.h) to one ledger, at most `window`
// in flight, and keeps the acknowledged record a recovering reader is
// checked against (VerifyAll): the highest acknowledged entry, failures,
// acks out of entry order, the longest gap between acks, and, from a
// watched entry on, when the first of those was acknowledged.
//
// Threads: the writer's callbacks and the test's thread share the record
// under `mu`; Await/Read take it. Stop() (also run by the destructor) ends
// the appends and waits, bounded, for those in flight; the LedgerWriter must
// outlive it.

#ifndef BK_TEST_FAULT_ACKED_WRITER_H_
#define BK_TEST_FAULT_ACKED_WRITER_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/ledger_writer.h"
#include "test/fault/fault_payload.h"

namespace bk::fault {

// What was acknowledged; read under AckedWriter::mu.
struct AckRecord {
  int64_t max_acked = -1;
  int64_t acks = 0;
  int64_t in_flight = 0;
  int64_t failed = 0;
  int64_t wrong_order = 0;
  std::string first_failure;
  absl::Time last_ack = absl::InfiniteFuture();
  absl::Duration max_gap = absl::ZeroDuration();
  // Set by Watch(): the first entry appended after it, and when the first
  // of those was acknowledged.
  int64_t watch_from = -1;
  absl::Time first_after = absl::InfiniteFuture();
  int64_t next_entry = 0;  // appended so far
};

class AckedWriter {
 public:
  AckedWriter(client::LedgerWriter* writer, int64_t ledger_id,
              int64_t window = 64)
      : writer_(writer), id_(ledger_id), window_(window) {
    thread_ = std::thread([this] { Run(); });
  }
  ~AckedWriter() { Stop(); }

  // Ends the appends and waits (60 s at most) for those in flight.
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  // Waits until `pred(record)` holds; false after `timeout`.
  template <typename Pred>
  bool Await(Pred pred, absl::Duration timeout) {
    absl::MutexLock l(&mu_);
    auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return pred(record_);
    };
    mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
    return pred(record_);
  }
  // Entries appended from now on are watched (AckRecord::first_after).
  void Watch() {
    absl::MutexLock l(&mu_);
    record_.watch_from = record_.next_entry;
  }
  AckRecord Read() {
    absl::MutexLock l(&mu_);
    return record_;
  }

 private:
  void Run() {
    while (!stop_) {
      int64_t e;
      {
        absl::MutexLock l(&mu_);
        auto room = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return record_.in_flight < window_ || stop_.load();
        };
        mu_.AwaitWithTimeout(absl::Condition(&room), absl::Seconds(1));
        if (record_.in_flight >= window_) continue;
        ++record_.in_flight;
        e = record_.next_entry++;
      }
      writer_->Append(FaultPayload(id_, e),
                      [this, e](absl::StatusOr<int64_t> r) { OnAck(e, r); });
    }
    absl::MutexLock l(&mu_);
    auto drained = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return record_.in_flight == 0;
    };
    mu_.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(60));
  }

  void OnAck(int64_t e, const absl::StatusOr<int64_t>& r) {
    absl::MutexLock l(&mu_);
    AckRecord& rec = record_;
    --rec.in_flight;
    if (!r.ok() || *r != e) {
      if (rec.failed++ == 0) {
        rec.first_failure = r.ok() ? "wrong id" : r.status().ToString();
      }
      return;
    }
    const absl::Time now = absl::Now();
    if (rec.last_ack != absl::InfiniteFuture()) {
      rec.max_gap = std::max(rec.max_gap, now - rec.last_ack);
    }
    rec.last_ack = now;
    if (e != rec.max_acked + 1) ++rec.wrong_order;
    rec.max_acked = std::max(rec.max_acked, e);
    ++rec.acks;
    if (rec.watch_from >= 0 && e >= rec.watch_from &&
        rec.first_after == absl::InfiniteFuture()) {
      rec.first_after = now;
    }
  }

  client::LedgerWriter* const writer_;
  const int64_t id_;
  const int64_t window_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  AckRecord record_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: started after the rest is set
};

}  // namespace bk::fault

#endif  // BK_TEST_FAULT_ACKED_WRITER_H_
