// bkctl localcluster: ZooKeeper plus N bookie processes on loopback, a line
// of per-bookie load every second, everything stopped cleanly on Ctrl-C.

#include <signal.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/bookie_admin.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/bkctl/workload.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::bkctl {
namespace {

// One line: each bookie's journal util, write rate and adds in flight.
// `spread`: replicas of the workload's current ledgers per bookie id (null
// without a workload).
std::string LoadLineOf(
    const std::vector<localcluster::BookieEndpoint>& bookies,
    const std::vector<std::unique_ptr<client::BookieAdmin>>& admins,
    const std::map<std::string, int>* spread) {
  std::string line;
  for (size_t i = 0; i < bookies.size(); ++i) {
    auto info = admins[i]->Info(absl::Milliseconds(500));
    std::string cell;
    if (!info.ok()) {
      cell = "down";
    } else {
      const client::BookieInfo& r = *info;
      auto pct = [](double v) {
        return v < 0 ? std::string("?") : absl::StrFormat("%.0f%%", v);
      };
      cell = absl::StrFormat(
          "j%s %sMB/s if%d", pct(r.journal_io_util),
          r.write_bytes_per_second < 0
              ? std::string("?")
              : absl::StrFormat("%.1f", r.write_bytes_per_second / 1048576.0),
          static_cast<int>(r.adds_in_flight));
      if (r.read_only) cell += " RO";
    }
    if (spread != nullptr) {
      auto it = spread->find(bookies[i].id);
      absl::StrAppend(&cell, " L", it == spread->end() ? 0 : it->second);
    }
    absl::StrAppend(&line, i ? " | " : "", bookies[i].id.substr(7), ":", cell);
  }
  return line;
}

int Run(const std::vector<std::string>& args, std::ostream& out,
        std::ostream& err) {
  auto f = ParseFlags(
      args,
      {{"bookies", false, "number of bookies (5)"},
       {"racks", false, "number of racks (3)"},
       {"dir", false, "state directory (/tmp/bk-localcluster)"},
       {"zookeeper-port", false, "ZooKeeper port (2181)"},
       {"first-bookie-port", false, "gRPC port of bookie 0 (3181)"},
       {"first-http-port", false, "HTTP port of bookie 0 (8000)"},
       {"bookie-binary", false, "path of `bookie` (beside bkctl)"},
       {"bookie-config", false,
        "extra bookie.conf lines for every bookie, comma-separated "
        "key=value (e.g. journalMaxGroupWaitMSec=1)"},
       {"seconds", false, "stop after this long (0: until Ctrl-C)"},
       {"weighting", false, "workload placement: none|disk|load|adaptive"},
       {"ledgers", false, "workload ledgers open at once (6)"},
       {"ensemble", false, "workload ensemble size (2)"},
       {"write-quorum", false, "workload write quorum (2)"},
       {"ack-quorum", false, "workload ack quorum (2)"},
       {"rate", false, "workload target entries per second (2000)"},
       {"entry-size", false, "workload entry bytes (1024)"},
       {"roll-seconds", false, "each ledger is rolled after this (10)"},
       {"no-workload", false, "start the cluster only", true}});
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
  WorkloadOptions wo;
  int rate = 2000, roll_seconds = 10;
  if (!int_flag("ledgers", 1, 1000, &wo.ledgers) ||
      !int_flag("ensemble", 1, 64, &wo.ensemble_size) ||
      !int_flag("write-quorum", 1, 64, &wo.write_quorum) ||
      !int_flag("ack-quorum", 1, 64, &wo.ack_quorum) ||
      !int_flag("rate", 1, 10000000, &rate) ||
      !int_flag("entry-size", 1, 16 << 20, &wo.entry_size) ||
      !int_flag("roll-seconds", 1, 86400, &roll_seconds)) {
    return kExitUsage;
  }
  wo.rate = rate;
  wo.roll_every = absl::Seconds(roll_seconds);
  if (!(wo.ack_quorum <= wo.write_quorum &&
        wo.write_quorum <= wo.ensemble_size)) {
    err << "bkctl localcluster: need --ack-quorum <= --write-quorum <= "
           "--ensemble\n";
    return kExitUsage;
  }
  if (f->Has("weighting")) {
    auto w = placement::ParseWeighting(f->Get("weighting"));
    if (!w.ok()) {
      err << "bkctl localcluster: --weighting: " << w.status().message()
          << "\n";
      return kExitUsage;
    }
    wo.weighting = *w;
  }
  const bool with_workload = !f->GetBool("no-workload");
  if (f->Has("dir")) o.dir = f->Get("dir");
  if (f->Has("bookie-config")) {
    auto lines = f->GetList("bookie-config");
    if (!lines.ok()) {
      err << "bkctl localcluster: " << lines.status().message() << "\n";
      return kExitUsage;
    }
    if (absl::Status s = localcluster::CheckBookieConfigLines(*lines);
        !s.ok()) {
      err << "bkctl localcluster: " << s.message() << "\n";
      return kExitUsage;
    }
    o.extra_bookie_config = *lines;
  }
  o.bookie_binary = f->Has("bookie-binary")
                        ? f->Get("bookie-binary")
                        : localcluster::BesideSelf("bookie");

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
  // The cluster's bookies serve plaintext.
  std::vector<std::unique_ptr<client::BookieAdmin>> admins;
  for (const auto& b : (*cluster)->bookies()) {
    out << "  " << b.id << "  rack " << b.rack
        << "  gRPC 127.0.0.1:" << b.grpc_port
        << "  HTTP http://127.0.0.1:" << b.http_port << "/metrics  log "
        << b.dir << "/bookie.log\n";
    auto admin = client::BookieAdmin::Connect(
        b.id, absl::StrCat("127.0.0.1:", b.grpc_port), {});
    if (!admin.ok()) {
      err << "bkctl localcluster: " << admin.status().message() << "\n";
      return kExitFailure;
    }
    admins.push_back(std::move(*admin));
  }
  std::unique_ptr<Workload> workload;
  if (with_workload && wo.ensemble_size > o.bookies) {
    err << "bkctl localcluster: workload ensemble " << wo.ensemble_size << " > "
        << o.bookies << " bookies; running without a workload\n";
  } else if (with_workload) {
    wo.metadata_uri = (*cluster)->metadata_uri();
    out << "workload: " << wo.ledgers << " ledgers E" << wo.ensemble_size
        << "/WQ" << wo.write_quorum << "/AQ" << wo.ack_quorum << ", " << rate
        << " entries/s of " << wo.entry_size << " B, weighting "
        << placement::WeightingName(wo.weighting) << ", each ledger rolled "
        << "every " << roll_seconds << " s" << std::endl;
    auto w = Workload::Start(wo);
    if (!w.ok()) {
      // The cluster stays up for the operator; only the workload is off.
      err << "bkctl localcluster: workload not started: "
          << w.status().message() << "\n";
    } else {
      workload = std::move(*w);
    }
  }
  out << "once a second: workload (acked entries/s, add latency p50/p99, "
         "failed adds) | per bookie: j = journal util, MB/s written, if = "
         "adds in flight, L = replicas of current ledgers; Ctrl-C stops "
         "everything\n"
      << std::flush;
  const absl::Time end = seconds > 0 ? absl::Now() + absl::Seconds(seconds)
                                     : absl::InfiniteFuture();
  while (absl::Now() < end) {
    struct timespec one_second {
      1, 0
    };
    if (sigtimedwait(&set, nullptr, &one_second) > 0) break;
    std::string head;
    std::optional<WorkloadSecond> ws;
    if (workload != nullptr) {
      ws = workload->TakeSecond();
      head = absl::StrFormat(
          "%5.0f/s p50 %5.1fms p99 %6.1fms fail %d%s | ",
          static_cast<double>(ws->acked) / std::max(ws->seconds, 1e-3),
          ws->p50_ms, ws->p99_ms, ws->failed,
          ws->skipped > 0 ? absl::StrCat(" behind ", ws->skipped) : "");
    }
    out << absl::FormatTime("%H:%M:%S", absl::Now(), absl::LocalTimeZone())
        << "  " << head
        << LoadLineOf((*cluster)->bookies(), admins, ws ? &ws->spread : nullptr)
        << std::endl;
    if (ws && !ws->last_error.empty()) {
      out << "          last error: " << ws->last_error << std::endl;
    }
  }
  if (workload != nullptr) {
    out << "stopping the workload (closing ledgers) ..." << std::endl;
    workload->Stop();
    // The workload's client keeps its ZooKeeper session until the process
    // ends; its reconnect attempts while ZooKeeper stops are not news.
    zoo_set_debug_level(static_cast<ZooLogLevel>(0));
  }
  out << "stopping bookies (drain) and ZooKeeper ..." << std::endl;
  (*cluster)->Stop();
  out << "stopped; state kept in " << o.dir << " (start again to resume)\n";
  // The workload's client is not destroyed: the process ends here, and
  // destroying a Client can race with gRPC finishing its add streams (a
  // double free in grpc_cq_internal_unref was seen once the bookies were
  // gone); its ledgers are closed already.
  (void)workload.release();
  return kExitOk;
}

}  // namespace

std::vector<Command> LocalClusterCommands() {
  return {{"", "localcluster",
           "ZooKeeper plus N bookies on loopback with a live load line; "
           "Ctrl-C stops all",
           "  --bookies N (5) --racks R (3) --dir DIR\n"
           "  --zookeeper-port P --first-bookie-port P --first-http-port P\n"
           "  --bookie-binary PATH --seconds S (0: until Ctrl-C)\n"
           "  --bookie-config key=value,... (extra bookie.conf lines)\n"
           "  workload: --weighting none|disk|load|adaptive (load) --ledgers N "
           "(6)\n"
           "  --ensemble E (2) --write-quorum W (2) --ack-quorum A (2)\n"
           "  --rate ENTRIES_PER_S (2000) --entry-size BYTES (1024)\n"
           "  --roll-seconds S (10) --no-workload\n",
           Run}};
}

}  // namespace bk::bkctl
