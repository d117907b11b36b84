// StoreBase's children watches (MetadataStore::WatchChildren): one entry per
// subscription, refreshed per path on the callback thread, as the ledger and
// bookie watches of store_base.cc are.

#include <set>
#include <utility>
#include <vector>

#include "metadata/layout.h"
#include "metadata/store_base.h"

namespace bk::metadata {

// `path` is constant; the other fields are touched only on the callback
// thread.
struct StoreBase::ChildrenWatch {
  std::string path;
  absl::AnyInvocable<void(absl::StatusOr<std::vector<std::string>>)> on_change;
  bool delivered = false;
  absl::StatusCode last_code = absl::StatusCode::kOk;
  std::vector<std::string> last;
};

std::unique_ptr<Subscription> StoreBase::WatchChildren(
    const std::string& path,
    absl::AnyInvocable<void(absl::StatusOr<std::vector<std::string>>)>
        on_change) {
  auto w = std::make_shared<ChildrenWatch>();
  w->path = path;
  w->on_change = std::move(on_change);
  uint64_t sub;
  {
    absl::MutexLock lock(&mu_);
    sub = next_sub_id_++;
    children_watches_.emplace(sub, std::move(w));
  }
  // First delivery: the current children, or kInvalidArgument for a bad
  // path (delivered once: RefreshChildren never reports a code twice).
  ChildrenChanged(path);
  return NewSubscription(sub);
}

void StoreBase::ChildrenChanged(const std::string& path) {
  {
    // Backends report every node change: most name no watched path, and
    // cost no task. (mu_ is never held across a call out of StoreBase, so
    // taking it here, under a backend's lock or on a ZooKeeper thread, is
    // safe.)
    absl::MutexLock lock(&mu_);
    bool watched = false;
    for (const auto& [sub, w] : children_watches_) {
      if (w->path == path) {
        watched = true;
        break;
      }
    }
    if (!watched) return;
  }
  callbacks_.Post([this, path] { RefreshChildren(path); });
}

void StoreBase::RearmChildrenWatches() {
  std::set<std::string> paths;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [sub, w] : children_watches_) paths.insert(w->path);
  }
  for (const std::string& path : paths) ChildrenChanged(path);
}

void StoreBase::RefreshChildren(const std::string& path) {
  std::vector<std::pair<uint64_t, std::shared_ptr<ChildrenWatch>>> ws;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [sub, w] : children_watches_) {
      if (w->path == path) ws.emplace_back(sub, w);
    }
  }
  if (ws.empty()) return;
  // A refused path reaches no backend, and leaves no watch there.
  absl::Status valid = ValidateNodePath(path);
  absl::StatusOr<std::vector<std::string>> r =
      valid.ok() ? ListChildrenAndWatch(path) : std::move(valid);
  for (auto& [sub, w] : ws) {
    if (w->delivered && w->last_code == r.status().code() &&
        (!r.ok() || w->last == *r)) {
      continue;  // nothing new for this watcher
    }
    {
      absl::MutexLock lock(&mu_);
      if (!children_watches_.contains(sub)) continue;
    }
    w->delivered = true;
    w->last_code = r.status().code();
    if (r.ok()) w->last = *r;
    w->on_change(r);
  }
}

}  // namespace bk::metadata
