// Coordination nodes on ZooKeeper: plain znodes under <root>/underreplication
// and <root>/placements (metadata_store.h, CreateNode). These calls block;
// they run on callers' threads or the callback thread, never on a ZooKeeper
// thread.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "metadata/zk/zk_store.h"

namespace bk::metadata {

std::string ZkStore::NodePath(const std::string& path) const {
  return absl::StrCat(layout_.root(), "/", path);
}

absl::StatusOr<std::string> ZkStore::CreateNode(const std::string& path,
                                                const std::string& data,
                                                NodeMode mode) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const int flags = mode == NodeMode::kPersistent ? 0
                    : mode == NodeMode::kEphemeral
                        ? ZOO_EPHEMERAL
                        : (ZOO_EPHEMERAL | ZOO_SEQUENCE);
  const std::string full = NodePath(path);
  for (int attempt = 0; attempt < 3; ++attempt) {
    ZkResult c = session_->Call(
        [&](ZkDone d) { session_->Create(full, data, flags, std::move(d)); });
    if (c.rc == ZOK) {
      // The created path, relative to the root.
      return c.data.substr(layout_.root().size() + 1);
    }
    if (c.rc == ZNODEEXISTS && c.retried && mode == NodeMode::kEphemeral) {
      // Our own retried create may have landed the first time.
      ZkResult g = session_->Call(
          [&](ZkDone d) { session_->Get(full, false, std::move(d)); });
      if (g.rc == ZOK &&
          g.stat.ephemeralOwner == session_->client_id().client_id) {
        return path;
      }
    }
    if (c.rc != ZNONODE) return ZkError(c.rc, uri() + full);
    // Parents first, persistent; one created meanwhile is fine.
    std::string partial = layout_.root();
    const std::string parent = ParentPath(path);
    for (absl::string_view seg : absl::StrSplit(parent, '/')) {
      absl::StrAppend(&partial, "/", seg);
      ZkResult p = session_->Call(
          [&](ZkDone d) { session_->Create(partial, "", 0, std::move(d)); });
      if (p.rc != ZOK && p.rc != ZNODEEXISTS) {
        return ZkError(p.rc, uri() + partial);
      }
    }
  }
  return absl::UnavailableError(absl::StrCat("cannot create ", uri(), full,
                                             ": its parent keeps vanishing"));
}

absl::StatusOr<Versioned<std::string>> ZkStore::ReadNode(
    const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const std::string full = NodePath(path);
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(full, false, std::move(d)); });
  if (g.rc != ZOK) return ZkError(g.rc, uri() + full);
  return Versioned<std::string>{std::move(g.data), g.stat.version};
}

absl::StatusOr<Version> ZkStore::SetNode(const std::string& path,
                                         const std::string& data,
                                         Version expected) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const std::string full = NodePath(path);
  const int version = expected == kAnyVersion ? -1 : static_cast<int>(expected);
  ZkResult r = session_->Call(
      [&](ZkDone d) { session_->Set(full, data, version, std::move(d)); });
  if (r.rc == ZOK) return r.stat.version;
  if (r.rc == ZBADVERSION && r.retried) {
    // Our retried write may have landed the first time.
    ZkResult g = session_->Call(
        [&](ZkDone d) { session_->Get(full, false, std::move(d)); });
    if (g.rc == ZOK && g.data == data && g.stat.version == version + 1) {
      return g.stat.version;
    }
  }
  return ZkError(r.rc, uri() + full);
}

absl::Status ZkStore::DeleteNode(const std::string& path, Version expected) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const std::string full = NodePath(path);
  const int version = expected == kAnyVersion ? -1 : static_cast<int>(expected);
  ZkResult r = session_->Call(
      [&](ZkDone d) { session_->Delete(full, version, std::move(d)); });
  if (r.rc == ZOK || (r.rc == ZNONODE && r.retried)) return absl::OkStatus();
  if (r.rc == ZNOTEMPTY) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", uri(), full, " has children"));
  }
  return ZkError(r.rc, uri() + full);
}

absl::StatusOr<std::vector<std::string>> ZkStore::ListChildren(
    const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const std::string full = NodePath(path);
  ZkResult l = session_->Call(
      [&](ZkDone d) { session_->GetChildren(full, false, std::move(d)); });
  if (l.rc != ZOK) return ZkError(l.rc, uri() + full);
  std::sort(l.children.begin(), l.children.end());
  return std::move(l.children);
}

absl::StatusOr<std::vector<std::string>> ZkStore::ListChildrenAndWatch(
    const std::string& path) {
  const std::string full = NodePath(path);
  // getChildren leaves no watch on a missing node: then an exists watch
  // catches its creation. Should the node appear between the two calls,
  // list again; a node that keeps flapping is listed again later.
  constexpr int kAttempts = 3;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ZkResult l = session_->Call(
        [&](ZkDone d) { session_->GetChildren(full, true, std::move(d)); });
    if (l.rc == ZOK) {
      std::sort(l.children.begin(), l.children.end());
      return std::move(l.children);
    }
    if (l.rc != ZNONODE) return ZkError(l.rc, uri() + full);
    ZkResult e = session_->Call(
        [&](ZkDone d) { session_->Exists(full, true, std::move(d)); });
    if (e.rc == ZNONODE) return ZkError(ZNONODE, uri() + full);
    if (e.rc != ZOK) return ZkError(e.rc, uri() + full);
  }
  ChildrenChanged(path);
  return ZkError(ZNONODE, uri() + full);
}

absl::StatusOr<bool> ZkStore::OwnsNode(const std::string& path) {
  if (absl::Status s = ValidateNodePath(path); !s.ok()) return s;
  const std::string full = NodePath(path);
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(full, false, std::move(d)); });
  if (g.rc != ZOK) return ZkError(g.rc, uri() + full);
  return g.stat.ephemeralOwner != 0 &&
         g.stat.ephemeralOwner == session_->client_id().client_id;
}

}  // namespace bk::metadata
