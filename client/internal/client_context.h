// ClientContext: everything one Client owns, shared by its writers, readers
// and background tasks (see client.h for the threads).
//
// Lifetime: made by Client::Create, destroyed by ~Client after every
// writer and reader is gone. Shutdown() stops the background threads, cancels
// the bookie connections and waits for every gRPC callback, in that order,
// so that nothing runs against a half-destroyed context.

#ifndef BK_CLIENT_INTERNAL_CLIENT_CONTEXT_H_
#define BK_CLIENT_INTERNAL_CLIENT_CONTEXT_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/client_options.h"
#include "client/internal/bookie_client.h"
#include "client/internal/client_probe.h"
#include "client/internal/cluster_view.h"
#include "client/internal/pause_guard.h"
#include "client/internal/placement_feed.h"
#include "common/executor.h"
#include "metadata/metadata_store.h"

namespace bk::client::internal {

class WriteHandle;

// One BookieClient per bookie, made on first use from the endpoint the
// cluster view knows. Thread-safe.
class BookiePool {
 public:
  BookiePool(ChannelConfig config, ClusterView* cluster)
      : config_(std::move(config)), cluster_(cluster) {}
  // Null when the bookie's endpoint is unknown or the pool is closed.
  std::shared_ptr<BookieClient> Get(const std::string& id);
  std::map<std::string, int64_t> AddsInFlight() const;
  // Every connection to one of `ids` tries to connect at once
  // (BookieClient::ResetConnectBackoff).
  void ResetConnectBackoff(const std::vector<std::string>& ids);
  ~BookiePool();  // Close(), then destroys the connections
  // Shuts every connection down (BookieClient::Shutdown: waits for their
  // callbacks); Get returns null from then on. The connections are kept
  // until the pool is destroyed.
  void Close();

 private:
  const ChannelConfig config_;
  ClusterView* const cluster_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<BookieClient>> clients_
      ABSL_GUARDED_BY(mu_);
  // Connections replaced after an endpoint change; closed with the pool,
  // destroyed with it (never on a gRPC thread).
  std::vector<std::shared_ptr<BookieClient>> retired_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class ClientContext {
 public:
  static absl::StatusOr<std::shared_ptr<ClientContext>> Create(
      ClientOptions options);
  ~ClientContext();

  void Shutdown();

  // Writers register so that the maintenance tick can time out their adds.
  void RegisterWriter(const std::shared_ptr<WriteHandle>& writer);

  const ClientOptions& options() const { return options_; }
  // The client's clock: options().env, never null here.
  absl::Time Now() const;
  uint64_t seed() const { return seed_; }
  metadata::MetadataStore* store() const { return store_.get(); }
  ClusterView* cluster() { return cluster_.get(); }
  BookiePool* pool() { return pool_.get(); }
  ClientProbe* probe() { return probe_.get(); }
  // Null unless this client shares its new ledgers (placement_feed.h).
  PlacementFeed* feed() { return feed_.get(); }
  // Runs user callbacks, in order.
  Executor* completions() { return &completions_; }
  // Blocking work: ensemble changes, metadata writes.
  Executor* worker() { return &worker_; }
  // Delayed work: speculative reads, the maintenance tick.
  Executor* timer() { return &timer_; }
  bool closing() const { return closing_.load(); }

 private:
  explicit ClientContext(ClientOptions options);
  void Tick();
  void PollLoop();
  // Reads every bookie's isolation groups into the cluster view (blocking;
  // on failure the groups known so far stay).
  void RefreshBookieGroups();

  // Constant after Create.
  ClientOptions options_;
  uint64_t seed_ = 0;
  std::unique_ptr<metadata::MetadataStore> store_;
  std::unique_ptr<ClientProbe> probe_;
  std::unique_ptr<ClusterView> cluster_;
  std::unique_ptr<BookiePool> pool_;
  std::unique_ptr<metadata::Subscription> bookie_watch_;
  std::unique_ptr<PlacementFeed> feed_;

  // Own synchronisation.
  Executor completions_;
  Executor worker_;
  Executor timer_;
  std::atomic<bool> closing_{false};
  std::thread poller_;
  // Only the tick (on the timer's thread) touches it.
  PauseGuard pause_guard_;

  absl::Mutex mu_;
  std::vector<std::weak_ptr<WriteHandle>> writers_ ABSL_GUARDED_BY(mu_);
  bool stop_poller_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_CLIENT_CONTEXT_H_
