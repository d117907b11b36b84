// Bookie registration (ephemeral znodes under available/ and
// available/readonly/), cookies and the instance id on ZooKeeper. These calls
// block; they run on callers' threads or the callback thread, never on a
// ZooKeeper thread.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "metadata/record_format.h"
#include "metadata/zk/zk_store.h"

namespace bk::metadata {

absl::Status ZkStore::DeleteIfOwnedLocked(const std::string& path) {
  const int64_t me = session_->client_id().client_id;
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
  if (g.rc == ZNONODE) return absl::OkStatus();
  if (g.rc != ZOK) return ZkError(g.rc, path);
  if (g.stat.ephemeralOwner != me) {
    return absl::AlreadyExistsError(
        absl::StrCat(path, " is held by another session (0x",
                     absl::Hex(g.stat.ephemeralOwner), ")"));
  }
  ZkResult d = session_->Call([&](ZkDone done) {
    session_->Delete(path, g.stat.version, std::move(done));
  });
  if (d.rc != ZOK && d.rc != ZNONODE) return ZkError(d.rc, path);
  return absl::OkStatus();
}

absl::Status ZkStore::CreateRegistrationLocked(
    const proto::BookieServiceInfo& info) {
  absl::StatusOr<std::string> bytes = EncodeBookie(info);
  if (!bytes.ok()) return bytes.status();
  const std::string& id = info.bookie_id();
  // Leave the other mode's directory first: a bookie is in one place.
  if (absl::Status s =
          DeleteIfOwnedLocked(layout_.Bookie(id, !info.read_only()));
      !s.ok()) {
    return s;
  }
  const std::string path = layout_.Bookie(id, info.read_only());
  ZkResult c = session_->Call([&](ZkDone d) {
    session_->Create(path, *bytes, ZOO_EPHEMERAL, std::move(d));
  });
  if (c.rc == ZOK) return absl::OkStatus();
  if (c.rc != ZNODEEXISTS) return ZkError(c.rc, path);
  // Already there: ours (a re-registration, or our retried create) is
  // replaced; another session's is an error.
  const int64_t me = session_->client_id().client_id;
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
  if (g.rc != ZOK) return ZkError(g.rc, path);
  if (g.stat.ephemeralOwner != me) {
    return absl::AlreadyExistsError(absl::StrCat(
        "bookie ", id, " is registered by another session at ", uri(), path));
  }
  ZkResult s = session_->Call([&](ZkDone d) {
    session_->Set(path, *bytes, g.stat.version, std::move(d));
  });
  return s.rc == ZOK ? absl::OkStatus() : ZkError(s.rc, path);
}

absl::Status ZkStore::RegisterBookie(const proto::BookieServiceInfo& info) {
  absl::MutexLock lock(&reg_mu_);
  absl::Status s = CreateRegistrationLocked(info);
  if (s.ok()) registered_[info.bookie_id()] = info;
  return s;
}

absl::Status ZkStore::UnregisterBookie(const std::string& bookie_id) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  absl::MutexLock lock(&reg_mu_);
  if (registered_.erase(bookie_id) == 0) {
    return absl::NotFoundError(
        absl::StrCat("bookie ", bookie_id, " is not registered by this store"));
  }
  for (bool ro : {false, true}) {
    if (absl::Status s = DeleteIfOwnedLocked(layout_.Bookie(bookie_id, ro));
        !s.ok() && !absl::IsAlreadyExists(s)) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<BookieSet> ZkStore::ListBookies() {
  return ListBookiesImpl(false);
}

absl::StatusOr<BookieSet> ZkStore::ListBookiesAndWatch() {
  return ListBookiesImpl(true);
}

absl::StatusOr<BookieSet> ZkStore::ListBookiesImpl(bool watch) {
  BookieSet set;
  for (bool ro : {false, true}) {
    const std::string dir = ro ? layout_.Readonly() : layout_.Available();
    ZkResult l = session_->Call(
        [&](ZkDone d) { session_->GetChildren(dir, watch, std::move(d)); });
    if (l.rc != ZOK) return ZkError(l.rc, dir);
    std::sort(l.children.begin(), l.children.end());
    for (const std::string& name : l.children) {
      if (!ro && name == Layout::kReadonlyDir) continue;
      const std::string path = absl::StrCat(dir, "/", name);
      // With a watch, a re-registration that only changes the info is seen
      // too (the children of the directory do not change then).
      ZkResult g = session_->Call(
          [&](ZkDone d) { session_->Get(path, watch, std::move(d)); });
      if (g.rc == ZNONODE) continue;  // left meanwhile
      if (g.rc != ZOK) return ZkError(g.rc, path);
      absl::StatusOr<proto::BookieServiceInfo> info =
          DecodeBookie(g.data, uri() + path);
      if (!info.ok()) return info.status();
      (ro ? set.readonly : set.writable).push_back(*std::move(info));
    }
  }
  return set;
}

absl::StatusOr<Versioned<proto::Cookie>> ZkStore::ReadCookie(
    const std::string& bookie_id) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  const std::string path = layout_.Cookie(bookie_id);
  ZkResult g = session_->Call(
      [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
  if (g.rc != ZOK) return ZkError(g.rc, uri() + path);
  absl::StatusOr<proto::Cookie> cookie = DecodeCookie(g.data, uri() + path);
  if (!cookie.ok()) return cookie.status();
  return Versioned<proto::Cookie>{*std::move(cookie), g.stat.version};
}

absl::StatusOr<Version> ZkStore::WriteVersioned(const std::string& path,
                                                const std::string& bytes,
                                                Version expected,
                                                absl::string_view what) {
  if (expected != kNotExists && (expected < 0 || expected > INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad expected ", what, " version ", expected));
  }
  ZkResult r = session_->Call([&](ZkDone d) {
    if (expected == kNotExists) {
      session_->Create(path, bytes, 0, std::move(d));
    } else {
      session_->Set(path, bytes, static_cast<int>(expected), std::move(d));
    }
  });
  if (r.rc == ZOK) return Version{r.stat.version};
  if (r.retried && (r.rc == ZNODEEXISTS || r.rc == ZBADVERSION)) {
    ZkResult g = session_->Call(
        [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
    if (g.rc == ZOK && g.data == bytes && g.stat.version == expected + 1) {
      return Version{g.stat.version};  // our first attempt took effect
    }
  }
  return ZkError(r.rc, uri() + path);
}

absl::Status ZkStore::DeleteVersioned(const std::string& path, Version expected,
                                      absl::string_view what) {
  if (expected != kAnyVersion && (expected < 0 || expected > INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad expected ", what, " version ", expected));
  }
  const int version = expected == kAnyVersion ? -1 : static_cast<int>(expected);
  ZkResult r = session_->Call(
      [&](ZkDone d) { session_->Delete(path, version, std::move(d)); });
  if (r.rc == ZOK || (r.rc == ZNONODE && r.retried)) return absl::OkStatus();
  return ZkError(r.rc, uri() + path);
}

absl::StatusOr<Version> ZkStore::WriteCookie(const std::string& bookie_id,
                                             const proto::Cookie& cookie,
                                             Version expected) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  absl::StatusOr<std::string> bytes = EncodeCookie(cookie);
  if (!bytes.ok()) return bytes.status();
  return WriteVersioned(layout_.Cookie(bookie_id), *bytes, expected, "cookie");
}

absl::Status ZkStore::DeleteCookie(const std::string& bookie_id,
                                   Version expected) {
  if (absl::Status s = ValidateBookieId(bookie_id); !s.ok()) return s;
  return DeleteVersioned(layout_.Cookie(bookie_id), expected, "cookie");
}

absl::StatusOr<std::vector<std::string>> ZkStore::ListCookies() {
  const std::string dir = layout_.Cookies();
  ZkResult l = session_->Call(
      [&](ZkDone d) { session_->GetChildren(dir, false, std::move(d)); });
  if (l.rc == ZNONODE) return std::vector<std::string>();
  if (l.rc != ZOK) return ZkError(l.rc, uri() + dir);
  std::sort(l.children.begin(), l.children.end());
  return l.children;
}

absl::StatusOr<std::string> ZkStore::InstanceId() {
  const std::string path = layout_.InstanceId();
  for (int attempt = 0; attempt < 2; ++attempt) {
    ZkResult g = session_->Call(
        [&](ZkDone d) { session_->Get(path, false, std::move(d)); });
    if (g.rc == ZOK) {
      if (g.data.empty()) {
        return absl::DataLossError(
            absl::StrCat("empty instance id at ", uri(), path));
      }
      return g.data;
    }
    if (g.rc != ZNONODE) return ZkError(g.rc, uri() + path);
    const std::string fresh = MakeInstanceId();
    ZkResult c = session_->Call(
        [&](ZkDone d) { session_->Create(path, fresh, 0, std::move(d)); });
    if (c.rc == ZOK) return fresh;
    if (c.rc != ZNODEEXISTS) return ZkError(c.rc, uri() + path);
    // Another client (or our retried create) won: read theirs.
  }
  return absl::InternalError(
      absl::StrCat("instance id at ", uri(), path, " keeps vanishing"));
}

}  // namespace bk::metadata
