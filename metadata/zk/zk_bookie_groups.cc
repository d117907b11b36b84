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
  if (expected != kNotExists && (expected < 0 || expected > INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad expected groups version ", expected));
  }
  absl::StatusOr<std::string> bytes = EncodeBookieGroups(groups);
  if (!bytes.ok()) return bytes.status();
  const std::string path = layout_.BookieGroups(groups.bookie_id);
  ZkResult r = session_->Call([&](ZkDone d) {
    if (expected == kNotExists) {
      session_->Create(path, *bytes, 0, std::move(d));
    } else {
      session_->Set(path, *bytes, static_cast<int>(expected), std::move(d));
    }
  });
  if (r.rc == ZOK) return Version{r.stat.version};
  if (r.retried && (r.rc == ZNODEEXISTS || r.rc == ZBADVERSION)) {
    ZkResult g = session_->Call(
        [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
    if (g.rc == ZOK && g.data == *bytes && g.stat.version == expected + 1) {
      return Version{g.stat.version};  // our first attempt took effect
    }
  }
  return ZkError(r.rc, uri() + path);
}

absl::Status ZkStore::DeleteBookieGroups(const std::string& bookie_id,
                                         Version expected) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  if (expected != kAnyVersion && (expected < 0 || expected > INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad expected groups version ", expected));
  }
  const std::string path = layout_.BookieGroups(bookie_id);
  const int version = expected == kAnyVersion ? -1 : static_cast<int>(expected);
  ZkResult r = session_->Call(
      [&](ZkDone d) { session_->Delete(path, version, std::move(d)); });
  if (r.rc == ZOK || (r.rc == ZNONODE && r.retried)) return absl::OkStatus();
  return ZkError(r.rc, uri() + path);
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
