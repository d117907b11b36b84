#include "bookie/daemon/bookie_daemon.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bookie/daemon/daemon_wiring.h"
#include "bookie/systemd_notify.h"
#include "common/thread_name.h"

namespace bk::bookie {
namespace {

// How long a stopping bookie's gRPC server waits for calls still open once
// the store is closed (Shutdown below).
constexpr absl::Duration kAnswerGrace = absl::Seconds(2);

}  // namespace

absl::StatusOr<std::unique_ptr<BookieDaemon>> BookieDaemon::Start(
    DaemonOptions options, Env* env) {
  std::unique_ptr<BookieDaemon> d(new BookieDaemon(std::move(options), env));
  absl::Status s = d->DoStart();
  if (!s.ok()) return s;
  return d;
}

BookieDaemon::BookieDaemon(DaemonOptions options, Env* env)
    : options_(std::move(options)), parts_(std::make_unique<DaemonParts>()) {
  parts_->env = env;
}

BookieDaemon::~BookieDaemon() { Shutdown(); }

int BookieDaemon::grpc_port() const { return parts_->grpc_port(); }
int BookieDaemon::http_port() const { return parts_->http_port(); }

absl::Status BookieDaemon::DoStart() {
  DaemonParts& p = *parts_;
  const DaemonOptions& o = options_;
  p.log = log::Get("bookie");
  p.start_time_ms = absl::ToUnixMillis(absl::Now());
  for (const std::string& w : IgnoredKeyWarnings(o)) p.log->warn("{}", w);

  if (absl::Status s = LoadHttpAdminToken(o, p); !s.ok()) return s;
  if (absl::Status s = OpenMetadata(o, p); !s.ok()) return s;
  if (absl::Status s = WaitForOldRegistration(o, p); !s.ok()) return s;
  if (absl::Status s = LockDirectories(o, p); !s.ok()) return s;
  if (absl::Status s = CheckCookies(o, p); !s.ok()) return s;
  if (absl::Status s = OpenStorage(o, p); !s.ok()) return s;
  InstallGcFilter(o, p);
  if (absl::Status s = StartMonitor(o, p); !s.ok()) return s;
  if (absl::Status s = StartDiskChecker(o, p); !s.ok()) return s;
  if (absl::Status s = StartService(o, p); !s.ok()) return s;
  if (absl::Status s = StartHttp(o, p); !s.ok()) return s;
  if (absl::Status s = Register(o, p); !s.ok()) return s;
  WatchSession(o, p);

  disk_thread_ = std::thread([this] {
    SetThreadName("bk-diskcheck");
    DiskLoop();
  });
  p.ready = true;
  const std::string status =
      absl::StrCat("serving gRPC on ", grpc_port(), ", HTTP on ", http_port(),
                   " as ", o.bookie_id);
  p.log->info("{}", status);
  NotifyReady(status);
  return absl::OkStatus();
}

void BookieDaemon::DiskLoop() {
  while (true) {
    {
      absl::MutexLock l(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&shutdown_requested_),
                               options_.disk.check_interval)) {
        return;
      }
    }
    if (absl::Status s = CheckDisks(options_, *parts_); !s.ok()) {
      parts_->log->error("{}", s.ToString());
      absl::MutexLock l(&mu_);
      if (failure_.ok()) failure_ = s;
      shutdown_requested_ = true;
      return;
    }
  }
}

void BookieDaemon::RequestShutdown() {
  absl::MutexLock l(&mu_);
  shutdown_requested_ = true;
}

absl::Status BookieDaemon::WaitAndShutdown() {
  {
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(&shutdown_requested_));
  }
  Shutdown();
  absl::MutexLock l(&mu_);
  return failure_;
}

// The parts in reverse of their start, except the store before the gRPC
// server: closing it refuses new adds, answers every long poll and lets the
// journal complete the adds it accepted, and gRPC's shutdown waits for
// every call (long polls end only when answered).
void BookieDaemon::Shutdown() {
  {
    absl::MutexLock l(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    shutdown_requested_ = true;
  }
  DaemonParts& p = *parts_;
  p.shutting_down = true;
  if (p.log) p.log->info("shutting down");
  NotifyStopping("draining");
  if (disk_thread_.joinable()) disk_thread_.join();
  p.session_listener.reset();
  if (p.registration) p.registration->Stop();
  if (p.metadata && p.registered) {
    p.metadata->UnregisterBookie(options_.bookie_id).IgnoreError();
    p.registered = false;
  }
  if (p.store) {
    absl::Status s = p.store->Close();
    if (!s.ok() && p.log) p.log->error("close: {}", s.ToString());
  }
  // Every add the store accepted is answered by now (Close), and later
  // ones are refused: what gRPC still waits for are the clients' open add
  // streams, which they keep until they notice the bookie left. Waiting
  // for that made every stop under load take the whole half of
  // shutdownTimeoutMs (15 s: a rolling restart of ten bookies spent 150 s
  // on it). A short grace lets the last answers go out; then the streams
  // are cancelled and the clients replace this bookie.
  if (p.grpc) {
    p.grpc->Shutdown(std::min(options_.shutdown_timeout / 2, kAnswerGrace));
  }
  if (p.monitor) p.monitor->Stop();
  p.http.reset();
  p.grpc.reset();
  p.service.reset();
  p.store.reset();
  p.gc_filter.reset();
  p.metadata.reset();
  if (p.log) p.log->info("stopped");
}

}  // namespace bk::bookie
