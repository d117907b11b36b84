// ZkSession: one ZooKeeper session over the C client (libzookeeper-mt), kept
// alive across expiry, with the asynchronous calls the ZooKeeper store is
// built from.
//
// Retries. A call that fails with connection loss, operation timeout, an
// expired or moved session, or a handle closed under it is re-issued after a
// back-off (doubling from backoff_initial to backoff_max) until
// operation_timeout has passed since the call; then it completes with the
// last error. A re-issued create, set or delete may already have taken
// effect the first time: ZkResult::retried says so, and the caller resolves
// the ambiguity (the ZooKeeper store reads the node back).
//
// Expiry. When the server reports the session expired, the session opens a
// new handle (on its own control thread; the old handle is closed there, not
// on a ZooKeeper thread), then calls `on_expired` and, once the new handle is
// connected, `on_reestablished`, both on the `events` executor. Watches left
// on the old session are gone: the owner re-arms them.
//
// Threads. Thread-safe. Completions (ZkDone) and the watch sink run on a
// ZooKeeper client thread or on the control thread and must not block. Call()
// blocks and must only be used on threads of our own.

#ifndef BK_METADATA_ZK_ZK_SESSION_H_
#define BK_METADATA_ZK_ZK_SESSION_H_

#include <zookeeper/zookeeper.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/executor.h"
#include "metadata/metadata_store.h"

namespace bk::metadata {

struct ZkResult {
  int rc = ZOK;
  std::string data;                   // Get; Create: the path created
  struct Stat stat = {};              // Get, Set, Create, Exists
  std::vector<std::string> children;  // GetChildren
  bool retried = false;               // re-issued after connection loss
};

using ZkDone = absl::AnyInvocable<void(ZkResult)>;

class ZkSession {
 public:
  struct Options {
    std::string hosts;  // "h1:p1,h2:p2"
    std::string uri;    // for error messages
    OpenOptions open;
    // "user:password": every handle authenticates with it (scheme digest)
    // before its first call, and creates znodes creator-only. Empty: no
    // authentication, znodes open to everyone.
    std::string digest;
  };
  // A watch event on `path` (ZOO_CHANGED_EVENT, ...). Must not block.
  using WatchSink = absl::AnyInvocable<void(int type, const std::string& path)>;
  using SessionHook = absl::AnyInvocable<void()>;

  // Connects, waiting up to options.open.connect_timeout. `events` must
  // outlive the session.
  static absl::StatusOr<std::unique_ptr<ZkSession>> Connect(
      Options options, Executor* events, WatchSink sink, SessionHook on_expired,
      SessionHook on_reestablished);

  ~ZkSession();  // Close()
  ZkSession(const ZkSession&) = delete;
  ZkSession& operator=(const ZkSession&) = delete;

  // Closes the session (its ephemerals vanish); pending calls complete with
  // ZCLOSING; later calls complete with ZCLOSING at once. Blocks until the
  // client's threads are gone. Must not be called on a ZooKeeper thread.
  void Close();

  void Create(std::string path, std::string data, int flags, ZkDone done);
  void Get(std::string path, bool watch, ZkDone done);
  void Set(std::string path, std::string data, int version, ZkDone done);
  void Delete(std::string path, int version, ZkDone done);
  void GetChildren(std::string path, bool watch, ZkDone done);
  void Exists(std::string path, bool watch, ZkDone done);
  // ZooKeeper's sync: completes once the server this session reads from
  // has caught up with the leader as of the call.
  void Sync(std::string path, ZkDone done);

  // Runs one of the calls above and waits for its completion.
  ZkResult Call(absl::AnyInvocable<void(ZkDone)> start);

  // The current session's id and password (tests use them to force expiry).
  clientid_t client_id();
  // Counts handles opened: it grows by one each time an expired session is
  // replaced.
  uint64_t generation();

 private:
  struct Op;
  struct HandleContext {
    ZkSession* session;
    uint64_t generation;
  };

  ZkSession(Options options, Executor* events, WatchSink sink,
            SessionHook on_expired, SessionHook on_reestablished);

  // Opens a handle for generation gen_ + 1 and makes it current.
  // Returns the handle it replaced.
  zhandle_t* OpenHandleLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Reopen(uint64_t expired_generation);

  void Issue(Op* op);
  void Complete(Op* op, ZkResult result);

  static void Watcher(zhandle_t* zh, int type, int state, const char* path,
                      void* context);
  void OnEvent(uint64_t generation, int type, int state, const char* path);

  static void OnString(int rc, const char* value, const struct Stat* stat,
                       const void* data);
  static void OnData(int rc, const char* value, int len,
                     const struct Stat* stat, const void* data);
  static void OnStat(int rc, const struct Stat* stat, const void* data);
  static void OnVoid(int rc, const void* data);
  static void OnSynced(int rc, const char* path, const void* data);
  static void OnAuth(int rc, const void* data);
  static void OnStrings(int rc, const struct String_vector* strings,
                        const void* data);

  // Constant after construction.
  const Options options_;
  Executor* const events_;

  // mu_ is held in reader mode while a call uses zh_, so that the handle is
  // not closed under it; in writer mode to swap or close the handle.
  absl::Mutex mu_;
  zhandle_t* zh_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Set after an expiry until the new handle connects.
  bool reestablishing_ ABSL_GUARDED_BY(mu_) = false;
  // Contexts of every handle opened (a closed handle's watcher may still be
  // called with its context until the handle is closed).
  std::vector<std::unique_ptr<HandleContext>> contexts_ ABSL_GUARDED_BY(mu_);
  // Set at construction, then only called. sink_ runs on ZooKeeper threads
  // (it must be safe to call concurrently); the hooks run on events_.
  WatchSink sink_;
  SessionHook on_expired_;
  SessionHook on_reestablished_;

  // Own synchronisation: retry timers and handle replacement. Declared
  // last: joined first.
  Executor control_;
};

// The absl::Status for a ZooKeeper return code; `what` names the znode.
absl::Status ZkError(int rc, const std::string& what);

}  // namespace bk::metadata

#endif  // BK_METADATA_ZK_ZK_SESSION_H_
