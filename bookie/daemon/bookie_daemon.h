// BookieDaemon: one running bookie, from start-up checks to drained exit.
//
// Start, in order, refusing with one clear error at the first problem (each
// step is a wiring unit of daemon_wiring.h):
//   1. open the metadata store; learn the cluster's instance id; wait (up
//      to two session timeouts) for a registration under our id to go, and
//      refuse if it stays: a live bookie holds the id;
//   2. cookies: every journal and ledger dir and the metadata store must
//      agree on (bookie id, instance id, dirs); empty dirs of a new bookie
//      get cookies; empty dirs of a bookie the metadata store knows are a
//      wiped disk and refuse start until `bookie format`;
//   3. replay the journal into the storage (BookieStoreImpl::Open);
//   4. start the load monitor, the disk checker, the gRPC and HTTP servers;
//   5. register (ephemeral) under the bookie id; a live bookie with the same
//      id refuses start;
//   6. tell systemd READY=1.
// While running, GC every gcWaitTime deletes the ledgers whose metadata the
// store no longer holds (MetadataLedgerFilter; none with a private mem://
// store). A disk check every diskCheckInterval turns the bookie
// read-only above diskUsageThreshold and back below diskUsageLwmThreshold,
// and moves its registration accordingly. A lost metadata session is
// re-established by the metadata store, which re-creates the registration.
//
// Shutdown (after RequestShutdown): unregister; close the store (new adds
// refused, long polls answered, accepted adds completed by the journal,
// flush and checkpoint); stop the gRPC server, giving open streams up to
// half the shutdown timeout; stop. Thread-safety: RequestShutdown may be called
// from any thread (a signal thread); the rest from the owning thread.

#ifndef BK_BOOKIE_DAEMON_BOOKIE_DAEMON_H_
#define BK_BOOKIE_DAEMON_BOOKIE_DAEMON_H_

#include <atomic>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "bookie/daemon/daemon_options.h"
#include "common/env.h"

namespace bk::bookie {

struct DaemonParts;

class BookieDaemon {
 public:
  // `env` (files, sync, clock of the store, cookies and disk checks) must
  // outlive the daemon; tests pass a fault-injecting one.
  static absl::StatusOr<std::unique_ptr<BookieDaemon>> Start(
      DaemonOptions options, Env* env = Env::Default());
  ~BookieDaemon();

  void RequestShutdown();
  // Blocks until RequestShutdown (or a failure that stops the bookie: a
  // full disk with readOnlyModeEnabled=false), then drains and stops.
  // Returns that failure, or OK.
  absl::Status WaitAndShutdown();

  int grpc_port() const;
  int http_port() const;

 private:
  BookieDaemon(DaemonOptions options, Env* env);
  // Runs the wiring units (daemon_wiring.h) in order.
  absl::Status DoStart();
  void DiskLoop();
  void Shutdown();

  const DaemonOptions options_;
  const std::unique_ptr<DaemonParts> parts_;

  absl::Mutex mu_;
  bool shutdown_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status failure_ ABSL_GUARDED_BY(mu_);  // why the bookie stopped
  std::thread disk_thread_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_BOOKIE_DAEMON_H_
