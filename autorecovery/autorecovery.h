// AutoRecovery: the auditor and the replication workers in one process, as
// BookKeeper's AutoRecoveryMain runs them: `bkctl autorecovery`, or a bookie
// executable that composes it in its main (autoRecoveryDaemonEnabled).
//
//   auto ar = bk::autorecovery::AutoRecovery::Start(options);  // StatusOr
//   ...
//   (*ar)->Stop();  // or destroy it
//
// Threads (its own): the auditor thread stands in the election every
// poll interval and, while it is the auditor, audits when the bookie
// registrations change, when a missing bookie's lostBookieRecoveryDelay
// ends, every auditorPeriodicBookieCheckInterval and when an operator asks
// (`bkctl triggeraudit`, which bumps <root>/underreplication/auditrequest),
// and checks what live bookies hold every auditorPeriodicCheckInterval
// (replica_check.h; on the same thread, so a long check delays audits);
// each worker thread (autoRecoveryWorkers of them) repairs marked ledgers
// one after another, each its own (the ledger locks keep them apart), and
// looks again every poll interval when there is nothing to do. The auditor
// has a metadata session of its own for the election and marks, the
// workers share one for marks and locks, and one client::Client for the
// copies.
//
// Lifetime: Stop (or the destructor) ends the threads (a repair in flight
// finishes first), withdraws from the election and closes the
// sessions, which releases any lock held.

#ifndef BK_AUTORECOVERY_AUTORECOVERY_H_
#define BK_AUTORECOVERY_AUTORECOVERY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "autorecovery/autorecovery_options.h"
#include "metadata/metadata_store.h"

namespace bk::client {
class Client;
}  // namespace bk::client

namespace bk::autorecovery {

class AuditorElection;
class AutoRecoveryProbe;
class ByteRateLimiter;
class UnderreplicationManager;

// The node `bkctl triggeraudit` bumps.
inline constexpr char kAuditRequestNode[] = "underreplication/auditrequest";
// Asks the auditor for an audit now.
absl::Status RequestAudit(metadata::MetadataStore* store);

// Counters since Start, for tests, logs and metrics.
struct AutoRecoveryStats {
  int64_t audits = 0;
  int64_t replica_checks = 0;       // auditorPeriodicCheckInterval's, done
  int64_t replica_check_marks = 0;  // ledgers they marked
  int64_t ledgers_repaired = 0;
  int64_t fragments_rereplicated = 0;
  int64_t entries_rereplicated = 0;
  int64_t bytes_rereplicated = 0;
  int64_t repair_failures = 0;
};

class AutoRecovery {
 public:
  static absl::StatusOr<std::unique_ptr<AutoRecovery>> Start(
      AutoRecoveryOptions options);
  ~AutoRecovery();  // Stop()
  AutoRecovery(const AutoRecovery&) = delete;
  AutoRecovery& operator=(const AutoRecovery&) = delete;

  void Stop();

  const std::string& id() const { return options_.id; }
  bool is_auditor() const { return is_auditor_.load(); }
  AutoRecoveryStats stats() const;
  // Where the metrics are (options' registry, or the service's own).
  std::shared_ptr<prometheus::Registry> metrics_registry() const;

 private:
  explicit AutoRecovery(AutoRecoveryOptions options);
  void AuditorLoop();
  void WorkerLoop();
  // Waits up to `d` or until Stop; returns false once stopping.
  bool Wait(absl::Duration d);

  // Constant after Start.
  AutoRecoveryOptions options_;
  std::unique_ptr<metadata::MetadataStore> auditor_store_;
  std::unique_ptr<metadata::MetadataStore> worker_store_;
  std::unique_ptr<client::Client> client_;
  std::unique_ptr<UnderreplicationManager> auditor_marks_;
  std::unique_ptr<UnderreplicationManager> worker_marks_;
  std::unique_ptr<AuditorElection> election_;
  std::unique_ptr<ByteRateLimiter> limiter_;
  std::unique_ptr<AutoRecoveryProbe> probe_;

  std::atomic<bool> is_auditor_{false};
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  AutoRecoveryStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread auditor_thread_;
  std::vector<std::thread> worker_threads_;
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUTORECOVERY_H_
