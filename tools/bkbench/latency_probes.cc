#include "tools/bkbench/latency_probes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace bk::bkbench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MicrosSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t)
      .count();
}

absl::Status Errno(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Closes a descriptor at scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<FsyncProbe>> FsyncProbe::Start(
    const std::string& dir, absl::Duration interval) {
  const std::string path = absl::StrCat(dir, "/bkbench-fsync-probe.", getpid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Errno(absl::StrCat("open ", path));
  return std::unique_ptr<FsyncProbe>(new FsyncProbe(fd, path, interval));
}

FsyncProbe::FsyncProbe(int fd, std::string path, absl::Duration interval)
    : fd_(fd), path_(std::move(path)), interval_(interval) {
  thread_ = std::thread([this] { Run(); });
}

FsyncProbe::~FsyncProbe() {
  absl::Status ignored;
  Stop(&ignored);
}

void FsyncProbe::Run() {
  char block[4096];
  std::memset(block, 'f', sizeof(block));
  for (int64_t i = 0; !stop_.load(); ++i) {
    const auto t = Clock::now();
    // Over 64 blocks, as a journal reusing its file writes over old ones.
    const bool ok = pwrite(fd_, block, sizeof(block), (i % 64) * 4096) ==
                        static_cast<ssize_t>(sizeof(block)) &&
                    fdatasync(fd_) == 0;
    const int64_t us = MicrosSince(t);
    {
      absl::MutexLock l(&mu_);
      if (!ok) {
        error_ = Errno(absl::StrCat("probe write+fdatasync on ", path_));
        return;
      }
      hist_.Record(us);
    }
    // A benchmark's pacing, not a wait for a condition.
    absl::SleepFor(interval_);
  }
}

LatencyHistogram FsyncProbe::Stop(absl::Status* error) {
  if (thread_.joinable()) {
    stop_.store(true);
    thread_.join();
    close(fd_);
    unlink(path_.c_str());
  }
  absl::MutexLock l(&mu_);
  *error = error_;
  return hist_;
}

absl::StatusOr<LatencyHistogram> LoopbackRtt(int rounds) {
  Fd listener{socket(AF_INET, SOCK_STREAM, 0)};
  if (listener.fd < 0) return Errno("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      listen(listener.fd, 1) != 0 ||
      getsockname(listener.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Errno("listen on 127.0.0.1");
  }
  Fd client{socket(AF_INET, SOCK_STREAM, 0)};
  if (client.fd < 0 ||
      connect(client.fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    return Errno("connect to 127.0.0.1");
  }
  Fd server{accept(listener.fd, nullptr, nullptr)};
  if (server.fd < 0) return Errno("accept");
  const int one = 1;
  setsockopt(client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(server.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  std::atomic<bool> failed{false};
  const int total = rounds + 100;
  std::thread echo([&] {
    char b;
    for (int i = 0; i < total; ++i) {
      if (read(server.fd, &b, 1) != 1 || write(server.fd, &b, 1) != 1) {
        failed.store(true);
        return;
      }
    }
  });
  LatencyHistogram h;
  char b = 'p';
  for (int i = 0; i < total && !failed.load(); ++i) {
    const auto t = Clock::now();
    if (write(client.fd, &b, 1) != 1 || read(client.fd, &b, 1) != 1) {
      failed.store(true);
      break;
    }
    if (i >= 100) h.Record(MicrosSince(t));
  }
  if (failed.load()) shutdown(server.fd, SHUT_RDWR);
  echo.join();
  if (failed.load()) return Errno("loopback ping-pong");
  return h;
}

}  // namespace bk::bkbench
