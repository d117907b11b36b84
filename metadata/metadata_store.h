// MetadataStore: where ledger metadata, bookie registrations, cookies and the
// cluster's instance id live. Two backends: ZooKeeper (zk://) and an
// in-process store (mem://); both keep the same semantics, so a test written
// against one holds for the other.
//
// Versions. Every record carries a Version. A record is created at version 0
// and each successful write adds one. A write that names a version succeeds
// only if the stored record is at exactly that version (compare-and-set);
// otherwise it fails with kAborted and changes nothing. (Abseil's guide puts a
// failed read-modify-write at kAborted: the caller retries from the read; see
// absl/status/status.h, kFailedPrecondition vs kAborted.)
//
// Status codes: kNotFound (no such record), kAlreadyExists (create of an
// existing record), kAborted (version conflict), kDataLoss (a stored record
// that does not decode: reported, never served), kUnavailable (ensemble
// unreachable, session lost mid-call, store closed), kInvalidArgument (bad
// input, bad URI).
//
// Threads. A MetadataStore is safe for concurrent use by any number of
// threads. Each store owns one callback thread: every callback the store
// makes (async completions, watches, session listeners) runs there, one at a
// time, in the order the store produced them, and never while the store holds
// a lock. Blocking (synchronous) methods may be called from any thread,
// including the callback thread, but not from a ZooKeeper client thread.
//
// Sessions. Bookie registrations are ephemeral: they live as long as the
// store's session. When a session expires, the store opens a new one,
// re-creates the registrations it owns, re-arms every watch (each watcher then
// sees the current state) and tells its session listeners, first kExpired
// (registrations are gone cluster-wide), then kReestablished.
//
// Lifetimes. Subscriptions (watches, listeners) and ledger iterators must be
// destroyed before the store that made them. Destroying the store closes its
// session (its registrations vanish at once), fails calls still in flight with
// kUnavailable and runs their callbacks before the destructor returns.

#ifndef BK_METADATA_METADATA_STORE_H_
#define BK_METADATA_METADATA_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/metadata.pb.h"

namespace bk::metadata {

using LedgerId = int64_t;  // >= 0
using Version = int64_t;   // >= 0 for a stored record

// For writes: the record must not exist yet (create).
inline constexpr Version kNotExists = -1;
// For deletes: whatever version is stored.
inline constexpr Version kAnyVersion = -2;

template <typename T>
struct Versioned {
  T value;
  Version version = kNotExists;
};

// The bookies registered at one moment, each list sorted by bookie_id.
struct BookieSet {
  std::vector<proto::BookieServiceInfo> writable;
  std::vector<proto::BookieServiceInfo> readonly;
};

// The isolation groups an operator tagged a bookie with (placement's
// isolation groups; `bkctl bookiegroups set`). Its own persistent record: it
// outlives the bookie's registration.
struct BookieGroups {
  std::string bookie_id;
  std::vector<std::string> groups;  // sorted, distinct, each non-empty

  bool operator==(const BookieGroups&) const = default;
};

enum class SessionEvent {
  kExpired,        // the session is gone, and with it this store's
                   // registrations; the store is opening a new one
  kReestablished,  // new session; registrations re-created, watches re-armed
};

// Cancels a watch or a listener when destroyed. After the destructor returns
// the callback is not running and will not run again (when destroyed on the
// callback thread itself, it simply will not run again).
class Subscription {
 public:
  virtual ~Subscription() = default;
};

// Ledger ids in ascending order, fetched from the store a page at a time (the
// ZooKeeper backend reads one leaf znode's children per page, at most 10,000).
// Not thread-safe. Blocking: do not use on a ZooKeeper client thread. A
// ledger created or deleted during the walk may or may not be seen.
class LedgerIterator {
 public:
  virtual ~LedgerIterator() = default;
  // Sets *id to the next ledger id and returns true; returns false at the end
  // or on an error, which status() then holds.
  virtual bool Next(LedgerId* id) = 0;
  virtual absl::Status status() const = 0;
};

template <typename T>
using Callback = absl::AnyInvocable<void(absl::StatusOr<T>)>;
using StatusCallback = absl::AnyInvocable<void(absl::Status)>;

class MetadataStore {
 public:
  virtual ~MetadataStore() = default;

  // The URI this store was opened with.
  virtual const std::string& uri() const = 0;

  // --- Ledger ids -------------------------------------------------------
  // A ledger id no other call, from this or any other client of the same
  // cluster, has returned or will return.
  virtual absl::StatusOr<LedgerId> NewLedgerId() = 0;
  virtual void NewLedgerIdAsync(Callback<LedgerId> done) = 0;

  // --- Ledger metadata ----------------------------------------------------
  // Metadata is validated before it is written (ensemble, quorums, segments);
  // invalid metadata is kInvalidArgument.
  //
  // Creates ledger `id`; returns its version (0). kAlreadyExists if present.
  virtual absl::StatusOr<Version> CreateLedger(
      LedgerId id, const proto::LedgerMetadata& metadata) = 0;
  virtual void CreateLedgerAsync(LedgerId id,
                                 const proto::LedgerMetadata& metadata,
                                 Callback<Version> done) = 0;

  virtual absl::StatusOr<Versioned<proto::LedgerMetadata>> ReadLedger(
      LedgerId id) = 0;
  virtual void ReadLedgerAsync(
      LedgerId id, Callback<Versioned<proto::LedgerMetadata>> done) = 0;

  // Replaces the metadata if it is at `expected`; returns the new version.
  virtual absl::StatusOr<Version> CompareAndSetLedger(
      LedgerId id, const proto::LedgerMetadata& metadata, Version expected) = 0;
  virtual void CompareAndSetLedgerAsync(LedgerId id,
                                        const proto::LedgerMetadata& metadata,
                                        Version expected,
                                        Callback<Version> done) = 0;

  // `expected` is a version or kAnyVersion.
  virtual absl::Status DeleteLedger(LedgerId id, Version expected) = 0;
  virtual void DeleteLedgerAsync(LedgerId id, Version expected,
                                 StatusCallback done) = 0;

  virtual std::unique_ptr<LedgerIterator> ListLedgers() = 0;

  // Calls `on_change` with the ledger's current metadata now and after each
  // change (kNotFound once deleted, kDataLoss if malformed). A burst of
  // changes may be seen as one.
  virtual std::unique_ptr<Subscription> WatchLedger(
      LedgerId id,
      absl::AnyInvocable<void(absl::StatusOr<Versioned<proto::LedgerMetadata>>)>
          on_change) = 0;

  // --- Bookie registration --------------------------------------------------
  // Registers `info.bookie_id()` ephemerally as writable, or as read-only
  // when info.read_only(). Registering again with the other mode moves the
  // registration (available/ <-> available/readonly/); with the same mode it
  // replaces the info. kAlreadyExists if another live session holds that id.
  // The store re-creates its registrations after a session expiry.
  virtual absl::Status RegisterBookie(const proto::BookieServiceInfo& info) = 0;
  // Removes this store's registration of `bookie_id` (kNotFound if none).
  virtual absl::Status UnregisterBookie(const std::string& bookie_id) = 0;
  virtual absl::StatusOr<BookieSet> ListBookies() = 0;
  // Calls `on_change` with the current set now and after each change.
  virtual std::unique_ptr<Subscription> WatchBookies(
      absl::AnyInvocable<void(absl::StatusOr<BookieSet>)> on_change) = 0;

  // --- Cookies ---------------------------------------------------------------
  virtual absl::StatusOr<Versioned<proto::Cookie>> ReadCookie(
      const std::string& bookie_id) = 0;
  // `expected` is kNotExists (create) or the stored version (replace).
  // Returns the new version.
  virtual absl::StatusOr<Version> WriteCookie(const std::string& bookie_id,
                                              const proto::Cookie& cookie,
                                              Version expected) = 0;
  // `expected` is a version or kAnyVersion.
  virtual absl::Status DeleteCookie(const std::string& bookie_id,
                                    Version expected) = 0;
  // The ids of every bookie with a cookie (every bookie formatted into this
  // cluster and not removed since), sorted. With the registrations this
  // tells which known bookies are down.
  virtual absl::StatusOr<std::vector<std::string>> ListCookies() = 0;

  // --- Bookie isolation groups ----------------------------------------------
  // Persistent, one record per tagged bookie (<root>/bookiegroups/<id>); a
  // bookie need not be registered to be tagged. Groups are validated on
  // write (non-empty names without '/' or blanks; stored sorted and
  // distinct): kInvalidArgument otherwise.
  virtual absl::StatusOr<Versioned<BookieGroups>> ReadBookieGroups(
      const std::string& bookie_id) = 0;
  // `expected` is kNotExists (create) or the stored version (replace).
  virtual absl::StatusOr<Version> WriteBookieGroups(const BookieGroups& groups,
                                                    Version expected) = 0;
  // `expected` is a version or kAnyVersion.
  virtual absl::Status DeleteBookieGroups(const std::string& bookie_id,
                                          Version expected) = 0;
  // Every bookie's groups, sorted by bookie id. Blocking.
  virtual absl::StatusOr<std::vector<BookieGroups>> ListBookieGroups() = 0;

  // --- Cluster ---------------------------------------------------------------
  // The cluster's instance id; the first call on a new cluster creates it.
  virtual absl::StatusOr<std::string> InstanceId() = 0;

  // Brings this store's view up to date: reads issued after Sync returns OK
  // see every write that completed, from any client, before Sync was called.
  // (A ZooKeeper session reads from one server, which may lag the leader;
  // ZooKeeper's sync makes that server catch up first. The in-process store
  // is always up to date.) Call it before acting on an absence, such as a
  // ledger whose metadata is gone. kUnavailable when the ensemble cannot be
  // reached within operation_timeout. Blocking.
  virtual absl::Status Sync() = 0;

  // --- Coordination nodes ----------------------------------------------------
  // Plain nodes for what is built on the store, under two top directories:
  // <root>/underreplication (autorecovery's under-replication marks, its
  // locks and its auditor election) and <root>/placements (new-ledger
  // announcements of clients that share their placements). `path` is
  // relative to the root, its first component "underreplication" or
  // "placements", components non-empty, no "." or ".."; anything else is
  // kInvalidArgument. Both directories behave alike. The store does not
  // interpret the data. Blocking, except WatchChildren.
  //
  // Ephemeral nodes live as long as this store's session: they vanish when
  // the store is destroyed or its session expires, and, unlike bookie
  // registrations, are NOT re-created after an expiry (the owner hears
  // kExpired and decides). A sequential node's name gets a 10-digit
  // counter appended, increasing in creation order under one parent.
  enum class NodeMode { kPersistent, kEphemeral, kEphemeralSequential };
  // Creates the node (missing parents are created persistent); returns its
  // path (relative to the root, with the counter for a sequential node).
  // kAlreadyExists if present (never for a sequential node).
  virtual absl::StatusOr<std::string> CreateNode(const std::string& path,
                                                 const std::string& data,
                                                 NodeMode mode) = 0;
  virtual absl::StatusOr<Versioned<std::string>> ReadNode(
      const std::string& path) = 0;
  // Replaces the data if the node is at `expected` (kAborted otherwise);
  // returns the new version.
  virtual absl::StatusOr<Version> SetNode(const std::string& path,
                                          const std::string& data,
                                          Version expected) = 0;
  // `expected` is a version or kAnyVersion. kFailedPrecondition when the
  // node has children.
  virtual absl::Status DeleteNode(const std::string& path,
                                  Version expected) = 0;
  // The names of the node's children, sorted; kNotFound if no such node.
  virtual absl::StatusOr<std::vector<std::string>> ListChildren(
      const std::string& path) = 0;
  // True when `path` is an ephemeral node of this store's current session.
  virtual absl::StatusOr<bool> OwnsNode(const std::string& path) = 0;
  // Calls `on_change` with the sorted names of the children of the
  // coordination node `path` now and after each change to that set (a
  // burst of changes may be seen as one; a change to a child's data is not
  // a change). kNotFound while the node does not exist (the watch stays:
  // it is called again once the node is created), kInvalidArgument for a
  // path ValidateNodePath refuses (called once, at once or on the callback
  // thread). On the callback thread, like every watch; re-armed after a
  // session expiry.
  virtual std::unique_ptr<Subscription> WatchChildren(
      const std::string& path,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<std::string>>)>
          on_change) = 0;

  // Session events, on the callback thread. A listener that blocks delays
  // the re-creation of registrations until it returns.
  virtual std::unique_ptr<Subscription> AddSessionListener(
      absl::AnyInvocable<void(SessionEvent)> listener) = 0;
};

struct OpenOptions {
  // How long Open waits to reach a ZooKeeper ensemble.
  absl::Duration connect_timeout = absl::Seconds(10);
  // ZooKeeper session timeout (the server clamps it to [2, 20] x tickTime).
  absl::Duration session_timeout = absl::Seconds(10);
  // How long one call keeps retrying after connection loss.
  absl::Duration operation_timeout = absl::Seconds(15);
  // Retry back-off after connection loss: doubles from initial up to max.
  absl::Duration backoff_initial = absl::Milliseconds(10);
  absl::Duration backoff_max = absl::Seconds(1);
  // Ledger ids fetched from the shared counter per round trip. Ids of a range
  // not used before the store closes are skipped, never reused.
  int64_t ledger_id_batch = 1000;
  // ZooKeeper authentication (zkEnableSecurity, as BookKeeper's key): when
  // true the session authenticates with the digest credentials of
  // zk_digest_file (one line "user:password", mode 0600; zk/zk_auth.h) and
  // every znode the store creates is readable and writable by that identity
  // only (ACL creator-all), so a session without the credentials can
  // neither read, delete nor rewrite it. False: no authentication, and new
  // znodes are open to everyone (OPEN_ACL_UNSAFE). Ignored by mem://.
  bool zk_enable_security = false;
  std::string zk_digest_file;  // zkDigestFile
};

// Opens a store:
//   zk://host:port[,host:port...]/root   ZooKeeper; the layout is created
//                                        under /root if missing
//   mem://                               a new private in-process cluster
//   mem://name                           the in-process cluster `name`,
//                                        shared by every store of this
//                                        process open on it; kept until
//                                        the process exits
// An unknown scheme or a malformed URI is kInvalidArgument; an unreachable
// ensemble is kUnavailable after options.connect_timeout. Errors name the
// URI.
absl::StatusOr<std::unique_ptr<MetadataStore>> Open(
    const std::string& uri, const OpenOptions& options = {});

}  // namespace bk::metadata

#endif  // BK_METADATA_METADATA_STORE_H_
