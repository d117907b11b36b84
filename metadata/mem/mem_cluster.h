// MemCluster: the state of one in-process metadata cluster, shared by every
// MemStore opened on it (mem://name), as a ZooKeeper ensemble is shared by
// its clients. Records are kept as encoded bytes (record_format.h) with
// versions, so the in-process store checks what it reads just as the
// ZooKeeper store does.
//
// Thread-safe. Observers are called under the cluster's lock and must only
// hand the news off (post to their own thread); they must not call back into
// the cluster.

#ifndef BK_METADATA_MEM_MEM_CLUSTER_H_
#define BK_METADATA_MEM_MEM_CLUSTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "metadata/metadata_store.h"

namespace bk::metadata {

class MemObserver {
 public:
  virtual ~MemObserver() = default;
  virtual void OnLedgerChanged(LedgerId id) = 0;
  virtual void OnBookiesChanged() = 0;
  // Coordination node `path` was created or deleted, or a child of it was.
  virtual void OnChildrenChanged(const std::string& path) = 0;
};

class MemCluster {
 public:
  using SessionId = uint64_t;

  // The cluster named `name`, created on first use and kept until the
  // process exits; "" gives a new private cluster, gone with its store.
  static std::shared_ptr<MemCluster> Get(const std::string& name);

  struct Record {
    std::string bytes;
    Version version = 0;
  };
  struct Registration {
    std::string bookie_id;
    std::string bytes;
    bool read_only = false;
  };

  void AddObserver(MemObserver* o);
  void RemoveObserver(MemObserver* o);  // no call to `o` after it returns

  SessionId NewSession();
  // Drops the session's registrations (as ZooKeeper drops ephemerals).
  void EndSession(SessionId session);

  // First of `n` consecutive fresh ledger ids.
  LedgerId AllocateIds(int64_t n);
  absl::StatusOr<Version> CreateLedger(LedgerId id, std::string bytes);
  absl::StatusOr<Record> ReadLedger(LedgerId id);
  absl::StatusOr<Version> SetLedger(LedgerId id, std::string bytes,
                                    Version expected);
  absl::Status DeleteLedger(LedgerId id, Version expected);
  // Up to `max` ledger ids greater than `after`, ascending.
  std::vector<LedgerId> ListLedgers(LedgerId after, size_t max);
  // Stores raw bytes without any check (tests: malformed data).
  void PutRawLedger(LedgerId id, std::string bytes);

  // Registers or replaces the registration of `bookie_id` held by `session`.
  absl::Status Register(SessionId session, const std::string& bookie_id,
                        std::string bytes, bool read_only);
  absl::Status Unregister(SessionId session, const std::string& bookie_id);
  std::vector<Registration> Registrations();

  absl::StatusOr<Record> ReadCookie(const std::string& id);
  absl::StatusOr<Version> WriteCookie(const std::string& id, std::string bytes,
                                      Version expected);
  absl::Status DeleteCookie(const std::string& id, Version expected);
  std::vector<std::string> CookieIds();  // sorted

  // Bookie groups records, keyed by bookie id (cookie semantics).
  absl::StatusOr<Record> ReadGroups(const std::string& id);
  absl::StatusOr<Version> WriteGroups(const std::string& id, std::string bytes,
                                      Version expected);
  absl::Status DeleteGroups(const std::string& id, Version expected);
  std::vector<Record> ListGroups();

  // Sets the instance id to `fresh` unless one exists; returns the stored id.
  std::string InstanceId(const std::string& fresh);

  // Coordination nodes (mem_nodes.cc), as MetadataStore's; paths already
  // validated. Ephemeral nodes belong to `session` and go with it.
  absl::StatusOr<std::string> CreateNode(SessionId session,
                                         const std::string& path,
                                         std::string data,
                                         MetadataStore::NodeMode mode);
  absl::StatusOr<Record> ReadNode(const std::string& path);
  absl::StatusOr<Version> SetNode(const std::string& path, std::string data,
                                  Version expected);
  absl::Status DeleteNode(const std::string& path, Version expected);
  absl::StatusOr<std::vector<std::string>> ListChildren(
      const std::string& path);
  // The session holding ephemeral node `path`; 0 for a persistent one.
  absl::StatusOr<SessionId> NodeOwner(const std::string& path);

 private:
  void LedgerChangedLocked(LedgerId id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BookiesChangedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Node `path` was created or deleted: tells the observers of it and of its
  // parent (mem_nodes.cc).
  void NodeAddedOrRemovedLocked(const std::string& path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::set<MemObserver*> observers_ ABSL_GUARDED_BY(mu_);
  SessionId next_session_ ABSL_GUARDED_BY(mu_) = 1;
  LedgerId next_ledger_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<LedgerId, Record> ledgers_ ABSL_GUARDED_BY(mu_);
  struct Held {
    SessionId session;
    Registration reg;
  };
  std::map<std::string, Held> bookies_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Record> cookies_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Record> groups_ ABSL_GUARDED_BY(mu_);
  std::string instance_id_ ABSL_GUARDED_BY(mu_);
  struct Node {
    Record record;
    SessionId owner = 0;     // 0: persistent
    int64_t next_child = 0;  // counter of sequential children
  };
  // Every coordination node by path; a parent sorts before its children.
  std::map<std::string, Node> nodes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bk::metadata

#endif  // BK_METADATA_MEM_MEM_CLUSTER_H_
