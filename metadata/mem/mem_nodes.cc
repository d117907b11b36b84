// MemCluster's coordination nodes: a map from path to node, the in-process
// image of ZooKeeper's znodes under <root>/underreplication and
// <root>/placements. Creating or deleting a node tells the observers of its
// path and of its parent's (children watches); a change of data does not.

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "metadata/layout.h"
#include "metadata/mem/mem_cluster.h"

namespace bk::metadata {
namespace {

bool IsChildOf(const std::string& path, const std::string& parent) {
  return path.size() > parent.size() + 1 &&
         path.compare(0, parent.size(), parent) == 0 &&
         path[parent.size()] == '/' &&
         path.find('/', parent.size() + 1) == std::string::npos;
}

}  // namespace

void MemCluster::NodeAddedOrRemovedLocked(const std::string& path) {
  const std::string parent = ParentPath(path);
  for (MemObserver* o : observers_) {
    o->OnChildrenChanged(path);
    if (!parent.empty()) o->OnChildrenChanged(parent);
  }
}

absl::StatusOr<std::string> MemCluster::CreateNode(
    SessionId session, const std::string& path, std::string data,
    MetadataStore::NodeMode mode) {
  absl::MutexLock lock(&mu_);
  // Parents, persistent, as the ZooKeeper store creates them.
  std::string parent = ParentPath(path);
  std::vector<std::string> missing;
  for (std::string p = parent; !p.empty(); p = ParentPath(p)) {
    auto it = nodes_.find(p);
    if (it != nodes_.end()) {
      if (it->second.owner != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat(p, " is ephemeral and cannot have children"));
      }
      break;
    }
    missing.push_back(p);
  }
  for (const auto& p : missing) {
    nodes_[p] = Node{};
    NodeAddedOrRemovedLocked(p);
  }
  std::string name = path;
  if (mode == MetadataStore::NodeMode::kEphemeralSequential) {
    char counter[16];
    std::snprintf(counter, sizeof(counter), "%010lld",
                  static_cast<long long>(nodes_[parent].next_child++));
    name += counter;
  } else if (nodes_.count(name) != 0) {
    return absl::AlreadyExistsError(absl::StrCat("node ", name, " exists"));
  }
  Node n;
  n.record.bytes = std::move(data);
  n.owner = mode == MetadataStore::NodeMode::kPersistent ? 0 : session;
  nodes_[name] = std::move(n);
  NodeAddedOrRemovedLocked(name);
  return name;
}

absl::StatusOr<MemCluster::Record> MemCluster::ReadNode(
    const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) {
    return absl::NotFoundError(absl::StrCat("no node ", path));
  }
  return it->second.record;
}

absl::StatusOr<Version> MemCluster::SetNode(const std::string& path,
                                            std::string data,
                                            Version expected) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) {
    return absl::NotFoundError(absl::StrCat("no node ", path));
  }
  Record& r = it->second.record;
  if (expected != kAnyVersion && r.version != expected) {
    return absl::AbortedError(absl::StrCat("node ", path, " is at version ",
                                           r.version, ", not ", expected));
  }
  r.bytes = std::move(data);
  return ++r.version;
}

absl::Status MemCluster::DeleteNode(const std::string& path, Version expected) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) {
    return absl::NotFoundError(absl::StrCat("no node ", path));
  }
  if (expected != kAnyVersion && it->second.record.version != expected) {
    return absl::AbortedError(absl::StrCat("node ", path, " is at version ",
                                           it->second.record.version, ", not ",
                                           expected));
  }
  // Descendants sort together right after path + "/".
  auto next = nodes_.lower_bound(path + "/");
  if (next != nodes_.end() &&
      next->first.compare(0, path.size() + 1, path + "/") == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", path, " has children"));
  }
  nodes_.erase(it);
  NodeAddedOrRemovedLocked(path);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> MemCluster::ListChildren(
    const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) {
    return absl::NotFoundError(absl::StrCat("no node ", path));
  }
  std::vector<std::string> out;
  for (it = nodes_.lower_bound(path + "/");
       it != nodes_.end() &&
       it->first.compare(0, path.size() + 1, path + "/") == 0;
       ++it) {
    if (IsChildOf(it->first, path)) {
      out.push_back(it->first.substr(path.size() + 1));
    }
  }
  return out;  // the map's order: sorted
}

absl::StatusOr<MemCluster::SessionId> MemCluster::NodeOwner(
    const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto it = nodes_.find(path);
  if (it == nodes_.end()) {
    return absl::NotFoundError(absl::StrCat("no node ", path));
  }
  return it->second.owner;
}

}  // namespace bk::metadata
