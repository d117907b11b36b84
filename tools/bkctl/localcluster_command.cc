// bkctl localcluster: ZooKeeper plus N bookie processes on loopback, a line
// of per-bookie load every second, everything stopped cleanly on Ctrl-C.

#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/bookie.grpc.pb.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::bkctl {
namespace {

std::string SelfDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.find_last_of('/'));
}

// One line: each bookie's journal util, write rate and adds in flight.
std::string LoadLineOf(
    const std::vector<localcluster::BookieEndpoint>& bookies,
    std::vector<std::unique_ptr<proto::Bookie::Stub>>& stubs) {
  std::string line;
  for (size_t i = 0; i < bookies.size(); ++i) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(500));
    proto::GetBookieInfoRequest req;
    req.set_requested(proto::LOAD | proto::FREE_DISK_SPACE);
    proto::GetBookieInfoResponse r;
    grpc::Status s = stubs[i]->GetBookieInfo(&ctx, req, &r);
    std::string cell;
    if (!s.ok()) {
      cell = "down";
    } else {
      auto pct = [](double v) {
        return v < 0 ? std::string("?") : absl::StrFormat("%.0f%%", v);
      };
      cell = absl::StrFormat(
          "j%s %sMB/s if%d", pct(r.journal_io_util()),
          r.write_bytes_per_second() < 0
              ? std::string("?")
              : absl::StrFormat("%.1f", r.write_bytes_per_second() / 1048576.0),
          static_cast<int>(r.adds_in_flight()));
      if (r.read_only()) cell += " RO";
    }
    absl::StrAppend(&line, i ? " | " : "", bookies[i].id.substr(7), ":", cell);
  }
  return line;
}

int Run(const std::vector<std::string>& args, std::ostream& out,
        std::ostream& err) {
  auto f = ParseFlags(
      args, {{"bookies", false, "number of bookies (5)"},
             {"racks", false, "number of racks (3)"},
             {"dir", false, "state directory (/tmp/bk-localcluster)"},
             {"zookeeper-port", false, "ZooKeeper port (2181)"},
             {"first-bookie-port", false, "gRPC port of bookie 0 (3181)"},
             {"first-http-port", false, "HTTP port of bookie 0 (8000)"},
             {"bookie-binary", false, "path of `bookie` (beside bkctl)"},
             {"seconds", false, "stop after this long (0: until Ctrl-C)"}});
  if (!f.ok()) {
    err << "bkctl localcluster: " << f.status().message() << "\n";
    return kExitUsage;
  }
  localcluster::LocalClusterOptions o;
  auto int_flag = [&](const char* name, int64_t min, int64_t max,
                      int* into) -> bool {
    if (!f->Has(name)) return true;
    auto v = f->GetInt(name, min, max);
    if (!v.ok()) {
      err << "bkctl localcluster: " << v.status().message() << "\n";
      return false;
    }
    *into = static_cast<int>(*v);
    return true;
  };
  int seconds = 0;
  if (!int_flag("bookies", 1, 50, &o.bookies) ||
      !int_flag("racks", 1, 50, &o.racks) ||
      !int_flag("zookeeper-port", 1, 65535, &o.zookeeper_port) ||
      !int_flag("first-bookie-port", 1, 65000, &o.first_bookie_port) ||
      !int_flag("first-http-port", 1, 65000, &o.first_http_port) ||
      !int_flag("seconds", 0, 86400 * 365, &seconds)) {
    return kExitUsage;
  }
  if (f->Has("dir")) o.dir = f->Get("dir");
  o.bookie_binary =
      f->Has("bookie-binary") ? f->Get("bookie-binary") : SelfDir() + "/bookie";

  // Ctrl-C and SIGTERM are taken synchronously below; children get their own
  // mask reset at exec.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  out << "starting ZooKeeper and " << o.bookies << " bookies over " << o.racks
      << " racks in " << o.dir << " ..." << std::endl;
  auto cluster = localcluster::LocalCluster::Start(o);
  if (!cluster.ok()) {
    err << "bkctl localcluster: " << cluster.status().message() << "\n";
    return kExitFailure;
  }
  out << "metadata URI: " << (*cluster)->metadata_uri() << "\n";
  std::vector<std::unique_ptr<proto::Bookie::Stub>> stubs;
  for (const auto& b : (*cluster)->bookies()) {
    out << "  " << b.id << "  rack " << b.rack
        << "  gRPC 127.0.0.1:" << b.grpc_port
        << "  HTTP http://127.0.0.1:" << b.http_port << "/metrics  log "
        << b.dir << "/bookie.log\n";
    stubs.push_back(proto::Bookie::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", b.grpc_port),
                            grpc::InsecureChannelCredentials())));
  }
  out << "per-bookie load once a second (j = journal util, MB/s written, "
         "if = adds in flight); Ctrl-C stops everything\n"
      << std::flush;
  const absl::Time end = seconds > 0 ? absl::Now() + absl::Seconds(seconds)
                                     : absl::InfiniteFuture();
  while (absl::Now() < end) {
    struct timespec one_second {
      1, 0
    };
    if (sigtimedwait(&set, nullptr, &one_second) > 0) break;
    out << absl::FormatTime("%H:%M:%S", absl::Now(), absl::LocalTimeZone())
        << "  " << LoadLineOf((*cluster)->bookies(), stubs) << std::endl;
  }
  out << "stopping bookies (drain) and ZooKeeper ..." << std::endl;
  (*cluster)->Stop();
  out << "stopped; state kept in " << o.dir << " (start again to resume)\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> LocalClusterCommands() {
  return {{"", "localcluster",
           "ZooKeeper plus N bookies on loopback with a live load line; "
           "Ctrl-C stops all",
           "  --bookies N (5) --racks R (3) --dir DIR\n"
           "  --zookeeper-port P --first-bookie-port P --first-http-port P\n"
           "  --bookie-binary PATH --seconds S (0: until Ctrl-C)\n",
           Run}};
}

}  // namespace bk::bkctl
