#include "metadata/zk/zk_session.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"

namespace bk::metadata {
namespace {

bool Retryable(int rc) {
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT ||
         rc == ZSESSIONEXPIRED || rc == ZSESSIONMOVED || rc == ZINVALIDSTATE ||
         rc == ZCLOSING;
}

void QuietClientLog() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
}

int ToMillis(absl::Duration d) {
  return static_cast<int>(
      std::clamp<int64_t>(absl::ToInt64Milliseconds(d), 1, INT32_MAX));
}

}  // namespace

absl::Status ZkError(int rc, const std::string& what) {
  const std::string msg = absl::StrCat(what, ": ", zerror(rc));
  switch (rc) {
    case ZOK:
      return absl::OkStatus();
    case ZNONODE:
      return absl::NotFoundError(msg);
    case ZNODEEXISTS:
      return absl::AlreadyExistsError(msg);
    case ZBADVERSION:
      return absl::AbortedError(absl::StrCat("version conflict on ", msg));
    case ZNOTEMPTY:
      return absl::FailedPreconditionError(msg);
    case ZBADARGUMENTS:
      return absl::InvalidArgumentError(msg);
    case ZNOAUTH:
    case ZAUTHFAILED:
      return absl::PermissionDeniedError(msg);
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZSESSIONEXPIRED:
    case ZSESSIONMOVED:
    case ZINVALIDSTATE:
    case ZCLOSING:
      return absl::UnavailableError(msg);
    default:
      return absl::InternalError(msg);
  }
}

struct ZkSession::Op {
  enum Kind { kCreate, kGet, kSet, kDelete, kChildren, kExists, kSync };
  Kind kind;
  std::string path;
  std::string data;
  int flags = 0;
  int version = -1;
  bool watch = false;
  ZkDone done;
  ZkSession* session = nullptr;
  absl::Time deadline;
  absl::Duration backoff;
  bool retried = false;
};

ZkSession::ZkSession(Options options, Executor* events, WatchSink sink,
                     SessionHook on_expired, SessionHook on_reestablished)
    : options_(std::move(options)),
      events_(events),
      sink_(std::move(sink)),
      on_expired_(std::move(on_expired)),
      on_reestablished_(std::move(on_reestablished)) {}

absl::StatusOr<std::unique_ptr<ZkSession>> ZkSession::Connect(
    Options options, Executor* events, WatchSink sink, SessionHook on_expired,
    SessionHook on_reestablished) {
  QuietClientLog();
  std::unique_ptr<ZkSession> s(
      new ZkSession(std::move(options), events, std::move(sink),
                    std::move(on_expired), std::move(on_reestablished)));
  const absl::Duration timeout = s->options_.open.connect_timeout;
  {
    absl::MutexLock lock(&s->mu_);
    s->OpenHandleLocked();
    if (s->zh_ == nullptr) {
      // The C client refuses a host list none of whose hosts resolves (or
      // one it cannot parse); its errno alone ("No such file or
      // directory") does not say so.
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot start a ZooKeeper client for ", s->options_.uri,
          ": no host of its list resolves, or the list is malformed (",
          std::strerror(errno), ")"));
    }
    s->mu_.AwaitWithTimeout(absl::Condition(&s->connected_), timeout);
    if (s->connected_) return s;
  }
  s->Close();
  return absl::UnavailableError(
      absl::StrCat("cannot reach the ZooKeeper ensemble of ", s->options_.uri,
                   " within ", absl::FormatDuration(timeout)));
}

ZkSession::~ZkSession() {
  Close();
  control_.Shutdown();
}

zhandle_t* ZkSession::OpenHandleLocked() {
  zhandle_t* old = zh_;
  ++generation_;
  contexts_.push_back(
      std::make_unique<HandleContext>(HandleContext{this, generation_}));
  connected_ = false;
  zh_ = zookeeper_init(options_.hosts.c_str(), &ZkSession::Watcher,
                       ToMillis(options_.open.session_timeout),
                       /*clientid=*/nullptr, contexts_.back().get(),
                       /*flags=*/0);
  if (zh_ != nullptr && !options_.digest.empty()) {
    // Queued in the handle: the client sends it right after each
    // (re)connection, before any call of ours (a digest is never refused;
    // wrong credentials are another identity, which the ACLs keep out).
    zoo_add_auth(zh_, "digest", options_.digest.data(),
                 static_cast<int>(options_.digest.size()), &OnAuth, nullptr);
  }
  return old;
}

void ZkSession::Close() {
  zhandle_t* zh;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    zh = zh_;
    zh_ = nullptr;
  }
  if (zh != nullptr) zookeeper_close(zh);
}

void ZkSession::Reopen(uint64_t expired_generation) {
  zhandle_t* old;
  {
    absl::MutexLock lock(&mu_);
    if (closed_ || generation_ != expired_generation) return;
    reestablishing_ = true;
    old = OpenHandleLocked();
    if (zh_ == nullptr) {
      // Could not even start a client (resources); keep the old handle
      // (expired: calls fail and retry) and try again later.
      zh_ = old;
      const uint64_t gen = generation_;
      control_.PostAfter(options_.open.backoff_max,
                         [this, gen] { Reopen(gen); });
      return;
    }
  }
  zookeeper_close(old);  // on our thread, never on a ZooKeeper thread
}

clientid_t ZkSession::client_id() {
  absl::ReaderMutexLock lock(&mu_);
  clientid_t id = {};
  if (zh_ != nullptr) id = *zoo_client_id(zh_);
  return id;
}

uint64_t ZkSession::generation() {
  absl::ReaderMutexLock lock(&mu_);
  return generation_;
}

// --- Events -----------------------------------------------------------------

void ZkSession::Watcher(zhandle_t*, int type, int state, const char* path,
                        void* context) {
  auto* ctx = static_cast<HandleContext*>(context);
  ctx->session->OnEvent(ctx->generation, type, state, path);
}

void ZkSession::OnEvent(uint64_t generation, int type, int state,
                        const char* path) {
  if (type != ZOO_SESSION_EVENT) {
    if (type != ZOO_NOTWATCHING_EVENT && path != nullptr) sink_(type, path);
    return;
  }
  absl::MutexLock lock(&mu_);
  if (closed_ || generation != generation_) return;  // an old handle
  if (state == ZOO_CONNECTED_STATE) {
    connected_ = true;
    if (reestablishing_) {
      reestablishing_ = false;
      events_->Post([this] { on_reestablished_(); });
    }
  } else if (state == ZOO_EXPIRED_SESSION_STATE) {
    connected_ = false;
    events_->Post([this] { on_expired_(); });
    control_.Post([this, generation] { Reopen(generation); });
  } else {
    connected_ = false;  // connecting / associating: the client reconnects
  }
}

// --- Calls ------------------------------------------------------------------

void ZkSession::Create(std::string path, std::string data, int flags,
                       ZkDone done) {
  Issue(new Op{Op::kCreate, std::move(path), std::move(data), flags, -1, false,
               std::move(done)});
}

void ZkSession::Get(std::string path, bool watch, ZkDone done) {
  Issue(new Op{Op::kGet, std::move(path), "", 0, -1, watch, std::move(done)});
}

void ZkSession::Set(std::string path, std::string data, int version,
                    ZkDone done) {
  Issue(new Op{Op::kSet, std::move(path), std::move(data), 0, version, false,
               std::move(done)});
}

void ZkSession::Delete(std::string path, int version, ZkDone done) {
  Issue(new Op{Op::kDelete, std::move(path), "", 0, version, false,
               std::move(done)});
}

void ZkSession::GetChildren(std::string path, bool watch, ZkDone done) {
  Issue(new Op{Op::kChildren, std::move(path), "", 0, -1, watch,
               std::move(done)});
}

void ZkSession::Exists(std::string path, bool watch, ZkDone done) {
  Issue(
      new Op{Op::kExists, std::move(path), "", 0, -1, watch, std::move(done)});
}

void ZkSession::Sync(std::string path, ZkDone done) {
  Issue(new Op{Op::kSync, std::move(path), "", 0, -1, false, std::move(done)});
}

ZkResult ZkSession::Call(absl::AnyInvocable<void(ZkDone)> start) {
  absl::Notification done;
  ZkResult result;
  start([&](ZkResult r) {
    result = std::move(r);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

void ZkSession::Issue(Op* op) {
  if (op->session == nullptr) {
    op->session = this;
    op->deadline = absl::Now() + options_.open.operation_timeout;
    op->backoff = options_.open.backoff_initial;
  }
  int rc = ZSYSTEMERROR;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (closed_ || zh_ == nullptr) {
      rc = ZCLOSING;
    } else {
      const char* p = op->path.c_str();
      switch (op->kind) {
        case Op::kCreate:
          rc = zoo_acreate2(zh_, p, op->data.data(),
                            static_cast<int>(op->data.size()),
                            options_.digest.empty() ? &ZOO_OPEN_ACL_UNSAFE
                                                    : &ZOO_CREATOR_ALL_ACL,
                            op->flags, &OnString, op);
          break;
        case Op::kGet:
          rc = zoo_aget(zh_, p, op->watch ? 1 : 0, &OnData, op);
          break;
        case Op::kSet:
          rc = zoo_aset(zh_, p, op->data.data(),
                        static_cast<int>(op->data.size()), op->version, &OnStat,
                        op);
          break;
        case Op::kDelete:
          rc = zoo_adelete(zh_, p, op->version, &OnVoid, op);
          break;
        case Op::kChildren:
          rc = zoo_aget_children(zh_, p, op->watch ? 1 : 0, &OnStrings, op);
          break;
        case Op::kExists:
          rc = zoo_aexists(zh_, p, op->watch ? 1 : 0, &OnStat, op);
          break;
        case Op::kSync:
          rc = zoo_async(zh_, p, &OnSynced, op);
          break;
      }
    }
  }
  if (rc != ZOK) {
    // Not sent: the completion will not be called.
    ZkResult r;
    r.rc = rc;
    Complete(op, std::move(r));
  }
}

void ZkSession::Complete(Op* op, ZkResult result) {
  bool closed;
  {
    absl::ReaderMutexLock lock(&mu_);
    closed = closed_;
  }
  if (Retryable(result.rc) && !closed &&
      absl::Now() + op->backoff <= op->deadline) {
    const absl::Duration wait = op->backoff;
    op->backoff = std::min(op->backoff * 2, options_.open.backoff_max);
    op->retried = true;
    control_.PostAfter(wait, [this, op] { Issue(op); });
    return;
  }
  result.retried = op->retried;
  ZkDone done = std::move(op->done);
  delete op;
  done(std::move(result));
}

void ZkSession::OnString(int rc, const char* value, const struct Stat* stat,
                         const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  if (rc == ZOK && stat != nullptr) r.stat = *stat;
  if (rc == ZOK && value != nullptr) r.data = value;  // the created path
  op->session->Complete(op, std::move(r));
}

void ZkSession::OnData(int rc, const char* value, int len,
                       const struct Stat* stat, const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  if (rc == ZOK) {
    if (value != nullptr && len > 0) r.data.assign(value, len);
    if (stat != nullptr) r.stat = *stat;
  }
  op->session->Complete(op, std::move(r));
}

void ZkSession::OnStat(int rc, const struct Stat* stat, const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  if (rc == ZOK && stat != nullptr) r.stat = *stat;
  op->session->Complete(op, std::move(r));
}

void ZkSession::OnVoid(int rc, const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  op->session->Complete(op, std::move(r));
}

void ZkSession::OnAuth(int, const void*) {}

void ZkSession::OnSynced(int rc, const char*, const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  op->session->Complete(op, std::move(r));
}

void ZkSession::OnStrings(int rc, const struct String_vector* strings,
                          const void* data) {
  Op* op = static_cast<Op*>(const_cast<void*>(data));
  ZkResult r;
  r.rc = rc;
  if (rc == ZOK && strings != nullptr) {
    r.children.reserve(strings->count);
    for (int i = 0; i < strings->count; ++i) {
      r.children.emplace_back(strings->data[i]);
    }
  }
  op->session->Complete(op, std::move(r));
}

}  // namespace bk::metadata
