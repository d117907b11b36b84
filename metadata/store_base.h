// StoreBase: what both backends share. It owns the callback thread, turns a
// backend's non-blocking primitives into the synchronous and asynchronous
// calls of MetadataStore, and keeps the watches and session listeners.
//
// A backend implements the Do* primitives, whose completions may run on any
// thread (inline, or a ZooKeeper client thread) and must not block, and the
// *AndWatch reads, which run on the callback thread and may block. It reports
// changes with LedgerChanged / BookiesChanged / ChildrenChanged (any thread,
// never blocks), and session changes with NotifySession and
// RefreshAllWatches.
//
// A derived destructor must first stop its backend from producing new work,
// then call ShutdownCallbacks() so that pending callbacks run while the
// derived object is still alive.

#ifndef BK_METADATA_STORE_BASE_H_
#define BK_METADATA_STORE_BASE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/executor.h"
#include "metadata/metadata_store.h"

namespace bk::metadata {

class StoreBase : public MetadataStore {
 public:
  explicit StoreBase(std::string uri);
  ~StoreBase() override;

  const std::string& uri() const final { return uri_; }

  absl::StatusOr<LedgerId> NewLedgerId() final;
  void NewLedgerIdAsync(Callback<LedgerId> done) final;
  absl::StatusOr<Version> CreateLedger(
      LedgerId id, const proto::LedgerMetadata& metadata) final;
  void CreateLedgerAsync(LedgerId id, const proto::LedgerMetadata& metadata,
                         Callback<Version> done) final;
  absl::StatusOr<Versioned<proto::LedgerMetadata>> ReadLedger(
      LedgerId id) final;
  void ReadLedgerAsync(LedgerId id,
                       Callback<Versioned<proto::LedgerMetadata>> done) final;
  absl::StatusOr<Version> CompareAndSetLedger(
      LedgerId id, const proto::LedgerMetadata& metadata,
      Version expected) final;
  void CompareAndSetLedgerAsync(LedgerId id,
                                const proto::LedgerMetadata& metadata,
                                Version expected, Callback<Version> done) final;
  absl::Status DeleteLedger(LedgerId id, Version expected) final;
  void DeleteLedgerAsync(LedgerId id, Version expected,
                         StatusCallback done) final;

  std::unique_ptr<Subscription> WatchLedger(
      LedgerId id,
      absl::AnyInvocable<void(absl::StatusOr<Versioned<proto::LedgerMetadata>>)>
          on_change) final;
  std::unique_ptr<Subscription> WatchBookies(
      absl::AnyInvocable<void(absl::StatusOr<BookieSet>)> on_change) final;
  std::unique_ptr<Subscription> WatchChildren(
      const std::string& path,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<std::string>>)>
          on_change) final;
  std::unique_ptr<Subscription> AddSessionListener(
      absl::AnyInvocable<void(SessionEvent)> listener) final;

 protected:
  virtual void DoNewLedgerId(Callback<LedgerId> done) = 0;
  virtual void DoCreateLedger(LedgerId id,
                              const proto::LedgerMetadata& metadata,
                              Callback<Version> done) = 0;
  virtual void DoReadLedger(
      LedgerId id, Callback<Versioned<proto::LedgerMetadata>> done) = 0;
  virtual void DoCompareAndSetLedger(LedgerId id,
                                     const proto::LedgerMetadata& metadata,
                                     Version expected,
                                     Callback<Version> done) = 0;
  virtual void DoDeleteLedger(LedgerId id, Version expected,
                              StatusCallback done) = 0;
  // Current state, leaving (where the backend needs one) a watch that will
  // call LedgerChanged / BookiesChanged / ChildrenChanged on the next change.
  virtual absl::StatusOr<Versioned<proto::LedgerMetadata>> ReadLedgerAndWatch(
      LedgerId id) = 0;
  virtual absl::StatusOr<BookieSet> ListBookiesAndWatch() = 0;
  // The sorted children of coordination node `path` (already validated). For
  // a missing node: kNotFound, leaving a watch that fires when it is created.
  virtual absl::StatusOr<std::vector<std::string>> ListChildrenAndWatch(
      const std::string& path) = 0;

  void LedgerChanged(LedgerId id);
  void BookiesChanged();
  // The node `path` (relative to the root) was created or deleted, or its
  // set of children changed. Paths no watch names are ignored.
  void ChildrenChanged(const std::string& path);
  // Re-reads every watched record (after a new session).
  void RefreshAllWatches();
  // Calls the session listeners: at once when called on the callback
  // thread (so that they run before anything queued after the caller),
  // otherwise by posting to it.
  void NotifySession(SessionEvent event);

  Executor& callbacks() { return callbacks_; }
  void ShutdownCallbacks() { callbacks_.Shutdown(); }

 private:
  struct LedgerWatch;
  struct BookieWatch;
  struct ChildrenWatch;
  struct Listener;
  class SubscriptionImpl;

  // Run on the callback thread.
  void RefreshLedger(LedgerId id);
  void RefreshBookies();
  // Children watches live in children_watch.cc.
  void RefreshChildren(const std::string& path);
  // Posts a refresh of every watched path (after a new session).
  void RearmChildrenWatches();
  void Unsubscribe(uint64_t sub_id);
  // The handle that cancels subscription `sub_id` when destroyed.
  std::unique_ptr<Subscription> NewSubscription(uint64_t sub_id);

  // Constant after construction.
  const std::string uri_;

  mutable absl::Mutex mu_;
  uint64_t next_sub_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, std::shared_ptr<LedgerWatch>> ledger_watches_
      ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<BookieWatch>> bookie_watches_
      ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<ChildrenWatch>> children_watches_
      ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<Listener>> listeners_ ABSL_GUARDED_BY(mu_);

  // Own synchronisation. Declared last: destroyed (joined) first.
  Executor callbacks_;
};

}  // namespace bk::metadata

#endif  // BK_METADATA_STORE_BASE_H_
