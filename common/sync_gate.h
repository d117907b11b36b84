// SyncGate: holds syncs until a test lets them through, so that an
// interleaving of writes and syncs is forced rather than hoped for (the
// role of rocksdb's TEST_SYNC_POINT for a disk).
//
// A gate is attached to a FaultInjectionEnv (FaultInjectionEnv::SetSyncGate)
// and sees every sync and every completed write of the files it matches.
// While the gate is open (the initial state) syncs pass untouched and
// nothing is counted. After Hold():
//  - every sync that reaches the gate is counted and waits for a permit
//    (Release) or for Open(); held syncs pass in the order they arrived,
//    so with several in flight a test knows which one a permit lets go;
//  - every completed write (Append, AppendV) is counted;
//  - a sync let through by Release(n, error) reports `error` instead of
//    syncing, and its file is broken from then on, as after a real failure.
// A sync on a file already broken still reaches the gate (and is counted),
// so a test can see that the code under test never retries a failed sync.
//
// Thread-safe. The gate must outlive the files that use it; a test should
// Open() it before it stops the code under test, or that code's shutdown
// may wait for a held sync forever.

#ifndef BK_COMMON_SYNC_GATE_H_
#define BK_COMMON_SYNC_GATE_H_

#include <deque>
#include <map>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bk {

class SyncGate {
 public:
  SyncGate() = default;
  SyncGate(const SyncGate&) = delete;
  SyncGate& operator=(const SyncGate&) = delete;

  // Starts holding syncs and counting syncs and writes (from zero, the
  // first time).
  void Hold();
  // Lets the next `n` held or future syncs through; each reports `result`
  // (OK: the sync then runs for real).
  void Release(int n, absl::Status result = absl::OkStatus());
  // Lets the sync with `ticket` through (0 for the first to reach the gate
  // since the first Hold()), held now or still to come, whatever its place
  // in the line; it reports `result`.
  void ReleaseSync(int ticket, absl::Status result = absl::OkStatus());
  // Stops holding: held syncs and every later one pass and sync.
  void Open();

  // Waits until `n` syncs have reached the gate since Hold(); false after
  // `timeout` (a hang is a failure, not a wait).
  bool AwaitSyncs(int n, absl::Duration timeout = absl::Seconds(30));
  // Waits until `n` writes have completed since Hold(); false after
  // `timeout`.
  bool AwaitWrites(int n, absl::Duration timeout = absl::Seconds(30));
  // Syncs that have reached the gate since Hold().
  int syncs() const;

  // For FaultInjectionEnv's files. Pass blocks while the gate holds and has
  // no permit; it returns what the sync should report instead of syncing
  // when not OK.
  absl::Status Pass();
  void Wrote();

 private:
  mutable absl::Mutex mu_;
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  // What each permit not used yet reports, in the order released.
  std::deque<absl::Status> permits_ ABSL_GUARDED_BY(mu_);
  // Permits for one ticket each (ReleaseSync).
  std::map<int, absl::Status> chosen_ ABSL_GUARDED_BY(mu_);
  int syncs_ ABSL_GUARDED_BY(mu_) = 0;  // since Hold(); also the next ticket
  std::set<int> waiting_ ABSL_GUARDED_BY(mu_);  // tickets held now
  int writes_ ABSL_GUARDED_BY(mu_) = 0;         // since Hold()
};

// Opens `gate` when it goes out of scope. Declare it after the code under
// test, so that on the way out (also when a REQUIRE failed) the gate opens
// before that code's shutdown waits for a held sync.
class OpenGateOnExit {
 public:
  explicit OpenGateOnExit(SyncGate* gate) : gate_(gate) {}
  ~OpenGateOnExit() { gate_->Open(); }
  OpenGateOnExit(const OpenGateOnExit&) = delete;
  OpenGateOnExit& operator=(const OpenGateOnExit&) = delete;

 private:
  SyncGate* const gate_;
};

}  // namespace bk

#endif  // BK_COMMON_SYNC_GATE_H_
