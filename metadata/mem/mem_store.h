// MemStore: the in-process backend (mem:// URIs). Same semantics as the
// ZooKeeper backend: versions, compare-and-set, ephemeral registrations tied
// to this store's session, watches, session expiry. Completions run on the
// store's callback thread, as for every MetadataStore.

#ifndef BK_METADATA_MEM_MEM_STORE_H_
#define BK_METADATA_MEM_MEM_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "metadata/mem/mem_cluster.h"
#include "metadata/store_base.h"

namespace bk::metadata {

class MemStore final : public StoreBase, private MemObserver {
 public:
  MemStore(std::string uri, std::shared_ptr<MemCluster> cluster,
           const OpenOptions& options);
  ~MemStore() override;

  // Ends this store's session as a ZooKeeper session expiry would: its
  // registrations vanish, listeners hear kExpired, then the store starts a
  // new session, re-registers and reports kReestablished (both on the
  // callback thread).
  void ExpireSession();

  MemCluster& cluster() { return *cluster_; }

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
  std::unique_ptr<LedgerIterator> ListLedgers() override;
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
  // One cluster, updated in place: always up to date.
  absl::Status Sync() override { return absl::OkStatus(); }

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
      const std::string& path) override;

 private:
  void OnLedgerChanged(LedgerId id) override { LedgerChanged(id); }
  void OnBookiesChanged() override { BookiesChanged(); }
  void OnChildrenChanged(const std::string& path) override {
    ChildrenChanged(path);
  }
  absl::StatusOr<Versioned<proto::LedgerMetadata>> Read(LedgerId id);
  // Runs on the callback thread after an expiry.
  void StartNewSession();

  // Constant after construction.
  const std::shared_ptr<MemCluster> cluster_;
  const int64_t id_batch_;

  absl::Mutex mu_;
  MemCluster::SessionId session_ ABSL_GUARDED_BY(mu_);
  // Registrations this store made, re-created after an expiry.
  std::map<std::string, proto::BookieServiceInfo> registered_
      ABSL_GUARDED_BY(mu_);
  LedgerId next_id_ ABSL_GUARDED_BY(mu_) = 0;
  LedgerId id_end_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace bk::metadata

#endif  // BK_METADATA_MEM_MEM_STORE_H_
