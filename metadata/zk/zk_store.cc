#include "metadata/zk/zk_store.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "metadata/zk/zk_auth.h"

namespace bk::metadata {

ZkStore::ZkStore(std::string uri, std::string root, const OpenOptions& options)
    : StoreBase(std::move(uri)), layout_(std::move(root)), options_(options) {}

absl::StatusOr<std::unique_ptr<ZkStore>> ZkStore::Open(
    const std::string& uri, const StoreUri& parsed,
    const OpenOptions& options) {
  std::string digest;
  if (options.zk_enable_security) {
    auto read = ReadZkDigestFile(options.zk_digest_file);
    if (!read.ok()) return read.status();
    digest = *std::move(read);
  }
  std::unique_ptr<ZkStore> store(new ZkStore(uri, parsed.root, options));
  ZkStore* s = store.get();
  absl::StatusOr<std::unique_ptr<ZkSession>> session = ZkSession::Connect(
      ZkSession::Options{absl::StrJoin(parsed.hosts, ","), uri, options,
                         std::move(digest)},
      &s->callbacks(),
      [s](int type, const std::string& path) { s->OnWatchEvent(type, path); },
      [s] { s->OnSessionExpired(); }, [s] { s->OnSessionReestablished(); });
  if (!session.ok()) return session.status();
  store->session_ = *std::move(session);
  if (absl::Status st = store->CreateLayout(); !st.ok()) {
    return absl::Status(st.code(), absl::StrCat("cannot create the layout of ",
                                                uri, ": ", st.message()));
  }
  return store;
}

ZkStore::~ZkStore() {
  if (session_ != nullptr) {
    // Order: no new ZooKeeper work, then the pending callbacks (which may
    // still use the closed session: calls fail at once), then the session.
    session_->Close();
  }
  ShutdownCallbacks();
  session_.reset();
}

absl::Status ZkStore::CreateLayout() {
  std::vector<std::string> paths;
  std::string prefix;
  for (absl::string_view seg : absl::StrSplit(layout_.root().substr(1), '/')) {
    prefix = absl::StrCat(prefix, "/", seg);
    paths.push_back(prefix);
  }
  for (const std::string& p :
       {layout_.Ledgers(), layout_.Available(), layout_.Readonly(),
        layout_.Cookies(), layout_.BookieGroupsDir()}) {
    paths.push_back(p);
  }
  for (const std::string& p : paths) {
    ZkResult r = session_->Call(
        [&](ZkDone d) { session_->Create(p, "", 0, std::move(d)); });
    if (r.rc != ZOK && r.rc != ZNODEEXISTS) return ZkError(r.rc, p);
  }
  ZkResult r = session_->Call([&](ZkDone d) {
    session_->Create(layout_.IdGen(), "0", 0, std::move(d));
  });
  if (r.rc != ZOK && r.rc != ZNODEEXISTS) return ZkError(r.rc, layout_.IdGen());
  return absl::OkStatus();
}

absl::Status ZkStore::Sync() {
  ZkResult r = session_->Call(
      [&](ZkDone d) { session_->Sync(layout_.root(), std::move(d)); });
  if (r.rc != ZOK) {
    return ZkError(r.rc, absl::StrCat("sync of ", uri()));
  }
  return absl::OkStatus();
}

void ZkStore::OnWatchEvent(int type, const std::string& path) {
  // Runs on a ZooKeeper thread: only hand off.
  const std::string parent = path.substr(0, path.rfind('/'));
  if (path == layout_.Available() || path == layout_.Readonly() ||
      parent == layout_.Available() || parent == layout_.Readonly()) {
    BookiesChanged();  // membership, or one bookie's info
    return;
  }
  const std::string& root = layout_.root();
  if (path.size() > root.size() + 1 &&
      path.compare(0, root.size(), root) == 0 && path[root.size()] == '/' &&
      IsNodePath(absl::string_view(path).substr(root.size() + 1))) {
    // A children watch (ZOO_CHILD_EVENT), or the exists watch left on a
    // missing node (ZOO_CREATED_EVENT); both fire on deletion. A data
    // change (ZOO_CHANGED_EVENT, from an exists watch that met the node)
    // changes no children.
    if (type != ZOO_CHANGED_EVENT) {
      ChildrenChanged(path.substr(root.size() + 1));
    }
    return;
  }
  const std::string prefix = layout_.Ledgers() + "/";
  if (path.compare(0, prefix.size(), prefix) != 0) return;
  std::vector<std::string> parts =
      absl::StrSplit(path.substr(prefix.size()), '/');
  if (parts.size() != kLedgerDirLevels + 1) return;
  const std::string leaf = parts.back();
  parts.pop_back();
  if (std::optional<LedgerId> id = ParseLedgerId(parts, leaf)) {
    LedgerChanged(*id);
  }
}

void ZkStore::OnSessionExpired() {
  // On the callback thread: listeners run now, before re-registration.
  NotifySession(SessionEvent::kExpired);
}

void ZkStore::OnSessionReestablished() {
  {
    absl::MutexLock lock(&reg_mu_);
    for (const auto& [id, info] : registered_) {
      // A failure leaves the bookie unregistered; its owner learns of the
      // expiry from the listeners and may register again.
      (void)CreateRegistrationLocked(info);
    }
  }
  RefreshAllWatches();
  NotifySession(SessionEvent::kReestablished);
}

// --- Ledger ids
// ---------------------------------------------------------------
//
// <root>/idgen holds the next unallocated id. A store takes a range of
// ledger_id_batch ids by compare-and-set of that counter and hands them out
// locally; waiters queue while a range is being fetched.

void ZkStore::DoNewLedgerId(Callback<LedgerId> done) {
  LedgerId id = -1;
  bool fetch = false;
  {
    absl::MutexLock lock(&id_mu_);
    if (next_id_ < id_end_) {
      id = next_id_++;
    } else {
      id_waiters_.push_back(std::move(done));
      fetch = !fetching_ids_;
      fetching_ids_ = true;
    }
  }
  if (id >= 0) {
    done(id);  // never under id_mu_
  } else if (fetch) {
    FetchIdRange();
  }
}

void ZkStore::FetchIdRange() {
  session_->Get(layout_.IdGen(), false, [this](ZkResult r) {
    if (r.rc != ZOK) {
      FailIdWaiters(ZkError(r.rc, layout_.IdGen()));
      return;
    }
    LedgerId first = 0;
    if (!absl::SimpleAtoi(r.data, &first) || first < 0) {
      FailIdWaiters(absl::DataLossError(absl::StrCat(
          "malformed ledger id counter at ", uri(), layout_.IdGen())));
      return;
    }
    const LedgerId end = first + std::max<int64_t>(1, options_.ledger_id_batch);
    session_->Set(layout_.IdGen(), absl::StrCat(end), r.stat.version,
                  [this, first, end](ZkResult s) {
                    if (s.rc == ZBADVERSION) {
                      // Another client took it (or our own retried write
                      // did: that range is skipped, never reused).
                      FetchIdRange();
                    } else if (s.rc != ZOK) {
                      FailIdWaiters(ZkError(s.rc, layout_.IdGen()));
                    } else {
                      GrantIdRange(first, end);
                    }
                  });
  });
}

void ZkStore::GrantIdRange(LedgerId first, LedgerId end) {
  std::vector<std::pair<Callback<LedgerId>, LedgerId>> grants;
  bool more;
  {
    absl::MutexLock lock(&id_mu_);
    next_id_ = first;
    id_end_ = end;
    size_t n = 0;
    while (n < id_waiters_.size() && next_id_ < id_end_) {
      grants.emplace_back(std::move(id_waiters_[n]), next_id_++);
      ++n;
    }
    id_waiters_.erase(id_waiters_.begin(), id_waiters_.begin() + n);
    more = !id_waiters_.empty();
    fetching_ids_ = more;
  }
  for (auto& [cb, id] : grants) cb(id);
  if (more) FetchIdRange();
}

void ZkStore::FailIdWaiters(const absl::Status& status) {
  std::vector<Callback<LedgerId>> waiters;
  {
    absl::MutexLock lock(&id_mu_);
    waiters.swap(id_waiters_);
    fetching_ids_ = false;
  }
  for (auto& cb : waiters) cb(status);
}

}  // namespace bk::metadata
