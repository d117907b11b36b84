// Bookie isolation groups on ZooKeeper: one persistent znode per tagged
// bookie under <root>/bookiegroups, written by compare-and-set like cookies.
// These calls block; they run on callers' threads or the callback thread,
// never on a ZooKeeper thread.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "metadata/record_format.h"
#include "metadata/zk/zk_store.h"

namespace bk::metadata {

absl::StatusOr<Versioned<BookieGroups>> ZkStore::ReadBookieGroups(
    const std::string& bookie_id) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  const std::string path = layout_.BookieGroups(bookie_id);
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
  if (g.rc != ZOK) return ZkError(g.rc, uri() + path);
  absl::StatusOr<BookieGroups> groups =
      DecodeBookieGroups(g.data, uri() + path);
  if (!groups.ok()) return groups.status();
  return Versioned<BookieGroups>{*std::move(groups), g.stat.version};
}

absl::StatusOr<Version> ZkStore::WriteBookieGroups(const BookieGroups& groups,
                                                   Version expected) {
  absl::StatusOr<std::string> bytes = EncodeBookieGroups(groups);
  if (!bytes.ok()) return bytes.status();
  return WriteVersioned(layout_.BookieGroups(groups.bookie_id), *bytes,
                        expected, "groups");
}

absl::Status ZkStore::DeleteBookieGroups(const std::string& bookie_id,
                                         Version expected) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  return DeleteVersioned(layout_.BookieGroups(bookie_id), expected, "groups");
}

absl::StatusOr<std::vector<BookieGroups>> ZkStore::ListBookieGroups() {
  const std::string dir = layout_.BookieGroupsDir();
  ZkResult l = session_->Call(
      [&](ZkDone d) { session_->GetChildren(dir, false, std::move(d)); });
  std::vector<BookieGroups> out;
  if (l.rc == ZNONODE) return out;  // a root laid out before groups existed
  if (l.rc != ZOK) return ZkError(l.rc, uri() + dir);
  std::sort(l.children.begin(), l.children.end());
  for (const std::string& name : l.children) {
    const std::string path = absl::StrCat(dir, "/", name);
    ZkResult g = session_->Call(
        [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
    if (g.rc == ZNONODE) continue;  // deleted meanwhile
    if (g.rc != ZOK) return ZkError(g.rc, uri() + path);
    absl::StatusOr<BookieGroups> groups =
        DecodeBookieGroups(g.data, uri() + path);
    if (!groups.ok()) return groups.status();
    out.push_back(*std::move(groups));
  }
  return out;
}

}  // namespace bk::metadata
