// ZkStore: the ZooKeeper backend (zk:// URIs). Layout under the root: see
// layout.h. Ledger calls are asynchronous end to end (ZooKeeper's async API;
// completions hand results to the callback thread). Registration, cookies,
// the instance id and watch refreshes block on our own threads only.
//
// Ambiguous writes: a create, compare-and-set or delete re-issued after
// connection loss may have taken effect the first time. The store reads the
// node back: a create that finds its own bytes at version 0 succeeded, a
// compare-and-set that finds its own bytes at expected + 1 succeeded, a
// delete that finds the node gone succeeded.

#ifndef BK_METADATA_ZK_ZK_STORE_H_
#define BK_METADATA_ZK_ZK_STORE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "metadata/layout.h"
#include "metadata/store_base.h"
#include "metadata/uri.h"
#include "metadata/zk/zk_session.h"

namespace bk::metadata {

class ZkStore final : public StoreBase {
 public:
  // Connects and creates the layout under the root if it is missing.
  static absl::StatusOr<std::unique_ptr<ZkStore>> Open(
      const std::string& uri, const StoreUri& parsed,
      const OpenOptions& options);
  ~ZkStore() override;

  // The session (tests use its client id to force expiry).
  ZkSession& session() { return *session_; }
  const Layout& layout() const { return layout_; }

  std::unique_ptr<LedgerIterator> ListLedgers() override;
  absl::Status RegisterBookie(const proto::BookieServiceInfo& info) override;
  absl::Status UnregisterBookie(const std::string& bookie_id) override;
  absl::StatusOr<BookieSet> ListBookies() override;
  absl::StatusOr<Versioned<proto::Cookie>> ReadCookie(
      const std::string& bookie_id) override;
  absl::StatusOr<Version> WriteCookie(const std::string& bookie_id,
                                      const proto::Cookie& cookie,
                                      Version expected) override;
  absl::Status DeleteCookie(const std::string& bookie_id,
                            Version expected) override;
  absl::StatusOr<std::vector<std::string>> ListCookies() override;
  absl::StatusOr<Versioned<BookieGroups>> ReadBookieGroups(
      const std::string& bookie_id) override;
  absl::StatusOr<Version> WriteBookieGroups(const BookieGroups& groups,
                                            Version expected) override;
  absl::Status DeleteBookieGroups(const std::string& bookie_id,
                                  Version expected) override;
  absl::StatusOr<std::vector<BookieGroups>> ListBookieGroups() override;
  absl::StatusOr<std::string> InstanceId() override;
  absl::Status Sync() override;
  // Coordination nodes (zk_nodes.cc).
  absl::StatusOr<std::string> CreateNode(const std::string& path,
                                         const std::string& data,
                                         NodeMode mode) override;
  absl::StatusOr<Versioned<std::string>> ReadNode(
      const std::string& path) override;
  absl::StatusOr<Version> SetNode(const std::string& path,
                                  const std::string& data,
                                  Version expected) override;
  absl::Status DeleteNode(const std::string& path, Version expected) override;
  absl::StatusOr<std::vector<std::string>> ListChildren(
      const std::string& path) override;
  absl::StatusOr<bool> OwnsNode(const std::string& path) override;

 protected:
  void DoNewLedgerId(Callback<LedgerId> done) override;
  void DoCreateLedger(LedgerId id, const proto::LedgerMetadata& metadata,
                      Callback<Version> done) override;
  void DoReadLedger(LedgerId id,
                    Callback<Versioned<proto::LedgerMetadata>> done) override;
  void DoCompareAndSetLedger(LedgerId id, const proto::LedgerMetadata& metadata,
                             Version expected, Callback<Version> done) override;
  void DoDeleteLedger(LedgerId id, Version expected,
                      StatusCallback done) override;
  absl::StatusOr<Versioned<proto::LedgerMetadata>> ReadLedgerAndWatch(
      LedgerId id) override;
  absl::StatusOr<BookieSet> ListBookiesAndWatch() override;
  absl::StatusOr<std::vector<std::string>> ListChildrenAndWatch(
      const std::string& path) override;  // zk_nodes.cc

 private:
  ZkStore(std::string uri, std::string root, const OpenOptions& options);

  absl::Status CreateLayout();
  void OnWatchEvent(int type, const std::string& path);
  void OnSessionExpired();
  void OnSessionReestablished();

  // Ledger ids (zk_ledger_ids.cc).
  void FetchIdRange();
  void GrantIdRange(LedgerId first, LedgerId end);
  void FailIdWaiters(const absl::Status& status);

  // Ledgers (zk_ledgers.cc).
  void CreateLedgerNode(LedgerId id, std::string bytes, int parent_attempts,
                        Callback<Version> done);
  std::string Where(LedgerId id) const;

  // Registration (zk_registration.cc).
  absl::Status CreateRegistrationLocked(const proto::BookieServiceInfo& info)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(reg_mu_);
  // Deletes `path` if this session owns it; kAlreadyExists if another does.
  absl::Status DeleteIfOwnedLocked(const std::string& path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(reg_mu_);
  absl::StatusOr<BookieSet> ListBookiesImpl(bool watch);
  // A persistent record written by compare-and-set (cookies, bookie
  // groups): `expected` is kNotExists (create) or the stored version; a
  // retried call whose first attempt took effect still succeeds. `what`
  // names the record in errors.
  absl::StatusOr<Version> WriteVersioned(const std::string& path,
                                         const std::string& bytes,
                                         Version expected,
                                         absl::string_view what);
  // `expected` is a version or kAnyVersion.
  absl::Status DeleteVersioned(const std::string& path, Version expected,
                               absl::string_view what);
  // <root>/path.
  std::string NodePath(const std::string& path) const;

  // Constant after construction.
  const Layout layout_;
  const OpenOptions options_;
  std::unique_ptr<ZkSession> session_;  // set once by Open

  absl::Mutex id_mu_;
  LedgerId next_id_ ABSL_GUARDED_BY(id_mu_) = 0;
  LedgerId id_end_ ABSL_GUARDED_BY(id_mu_) = 0;
  bool fetching_ids_ ABSL_GUARDED_BY(id_mu_) = false;
  std::vector<Callback<LedgerId>> id_waiters_ ABSL_GUARDED_BY(id_mu_);

  // Held across the ZooKeeper calls of one registration change, so that
  // changes of this store's registrations are applied one at a time.
  absl::Mutex reg_mu_;
  std::map<std::string, proto::BookieServiceInfo> registered_
      ABSL_GUARDED_BY(reg_mu_);
};

}  // namespace bk::metadata

#endif  // BK_METADATA_ZK_ZK_STORE_H_
