// RegistrationKeeper: registers the bookie again after its metadata session
// was re-established, and keeps retrying with backoff while that fails
// (another session holds the bookie's id, the store is unreachable), so a
// bookie is never left unregistered while claiming to be registered.
//
// The registration itself is the caller's function (daemon_metadata.cc's
// Register), which marks the bookie registered when it succeeds; the
// keeper only decides when to call it. Each failure is logged and counted.
//
// Lifecycle: the thread starts in the constructor; Stop (or the
// destructor) stops and joins it (an attempt in progress finishes first);
// failures() stays readable until destruction.
// Thread-safety: RegisterAgain and failures may be called from any thread;
// RegisterAgain never blocks (the store's session listener calls it).

#ifndef BK_BOOKIE_DAEMON_REGISTRATION_KEEPER_H_
#define BK_BOOKIE_DAEMON_REGISTRATION_KEEPER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/logging.h"

namespace bk::bookie {

class RegistrationKeeper {
 public:
  struct Options {
    absl::Duration initial_backoff = absl::Milliseconds(100);
    absl::Duration max_backoff = absl::Seconds(10);  // doubling up to this
  };

  RegistrationKeeper(std::function<absl::Status()> register_fn, Options options,
                     log::Logger log);
  ~RegistrationKeeper();
  RegistrationKeeper(const RegistrationKeeper&) = delete;
  RegistrationKeeper& operator=(const RegistrationKeeper&) = delete;

  // Ends the retries and joins the thread. Idempotent; not from the
  // register function itself.
  void Stop();
  // Asks for a registration now; retried until one succeeds.
  void RegisterAgain();
  // Registration attempts that failed.
  uint64_t failures() const {
    return failures_.load(std::memory_order_relaxed);
  }

 private:
  void Run();

  // Constant after construction.
  const std::function<absl::Status()> register_fn_;
  const Options options_;
  const log::Logger log_;

  absl::Mutex mu_;
  bool wanted_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;

  // Own synchronisation.
  std::atomic<uint64_t> failures_{0};
  std::thread thread_;  // started last
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_DAEMON_REGISTRATION_KEEPER_H_
