// bkbench read: the client's range-read path against the bare gRPC stream
// of the same entries (issue 22, target 5), without writers or other
// readers in the way, so that the two compare on the same machine state.
//
// A local cluster of --bookies bookies (or --metadata-uri's cluster) gets
// one ledger of --entries entries of --entry-size bytes (E/WQ/AQ from
// -e/-w/-a), closed unless --open. Then, --rounds times, alternating:
//   stream: the entries streamed as stored by plain ReadEntries calls
//           (read_ceiling.h: no digest check, no reordering, no window);
//   client: the ledger opened without recovery and read from entry 0 to
//           the end in Read() calls of --batch entries, as a catch-up
//           reader or a broker's dispatcher reads, every payload checked
//           against what was written.
// Printed per round: entries/s of each, the client's share of the stream,
// and the CPU this process and the cluster's processes spent per entry in
// each (cpu_account.h; a local cluster only for the bookies' share). The
// ledger is deleted at the end.

#include <algorithm>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/client.h"
#include "tools/bkbench/commands.h"
#include "tools/bkbench/cpu_account.h"
#include "tools/bkbench/read_ceiling.h"
#include "tools/bkctl/flags.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::bkbench {
namespace {

int Fail(const std::string& what, const absl::Status& s) {
  std::cerr << "bkbench read: " << what << ": " << s.message() << "\n";
  return 1;
}

// Entry e's payload: its id in the first bytes, then a fill, so that a
// read that returns the wrong entry is caught.
std::string PayloadOf(int64_t e, int size) {
  std::string p(static_cast<size_t>(size), static_cast<char>('a' + e % 26));
  const std::string id = absl::StrCat(e, ":");
  p.replace(0, std::min(p.size(), id.size()), id.substr(0, p.size()));
  return p;
}

absl::Status WriteLedger(client::LedgerWriter* w, int64_t entries, int size) {
  std::vector<std::future<absl::StatusOr<int64_t>>> acks;
  for (int64_t e = 0; e < entries; ++e) {
    acks.push_back(w->Append(PayloadOf(e, size)));
    if (acks.size() >= 512) {
      for (auto& a : acks) {
        if (auto r = a.get(); !r.ok()) return r.status();
      }
      acks.clear();
    }
  }
  for (auto& a : acks) {
    if (auto r = a.get(); !r.ok()) return r.status();
  }
  return absl::OkStatus();
}

// Reads 0..entries-1 through `r` in Read() calls of `batch`; the entries
// read.
absl::StatusOr<int64_t> ClientRead(client::LedgerReader* r, int64_t entries,
                                   int64_t batch, int size) {
  int64_t next = 0;
  client::LedgerEntry e;
  while (next < entries) {
    const int64_t last = std::min(entries - 1, next + batch - 1);
    auto it = r->Read(next, last);
    while (it->Next(&e)) {
      if (e.entry_id != next || e.payload != PayloadOf(next, size)) {
        return absl::DataLossError(
            absl::StrCat("entry ", next, " read back wrong (got id ",
                         e.entry_id, ", ", e.payload.size(), " bytes)"));
      }
      ++next;
    }
    if (!it->status().ok()) return it->status();
    if (next != last + 1) {
      return absl::DataLossError(absl::StrCat("read of ", last - batch + 1,
                                              "..", last, " ended at ", next));
    }
  }
  return next;
}

struct Measured {
  double entries_per_s = 0;
  double self_us = -1;    // this process's CPU per entry
  double others_us = -1;  // the cluster's processes' CPU per entry
  double cores_left = -1;
};

Measured Account(const CpuSnapshot& a, const CpuSnapshot& b, int64_t n) {
  const CpuUse u = CpuBetween(a, b);
  Measured m;
  m.entries_per_s = u.wall_s > 0 ? n / u.wall_s : 0;
  m.self_us = u.self_s >= 0 ? u.self_s * 1e6 / n : -1;
  m.others_us = u.others_s >= 0 && !a.pids.empty() ? u.others_s * 1e6 / n : -1;
  m.cores_left = u.cores_left();
  return m;
}

std::string Us(double v) {
  return v < 0 ? std::string("-") : absl::StrFormat("%.2f", v);
}

}  // namespace

int ReadCommand(const std::vector<std::string>& raw) {
  const std::vector<std::string> args = bkctl::ShortFlagsToLong(raw);
  const std::vector<bkctl::FlagSpec> specs = {
      {"metadata-uri", false, "a running cluster (else a local one)"},
      {"local-cluster", false, "directory for a local cluster"},
      {"bookie-binary", false, "path of `bookie` (beside bkbench)"},
      {"bookies", false, "bookies of the local cluster (3)"},
      {"bookie-config", false,
       "key=value,... more config lines for the local cluster's bookies"},
      {"entries", false, "entries in the ledger (100000)"},
      {"entry-size", false, "payload bytes (1024)"},
      {"e", false, "ensemble (3)"},
      {"w", false, "write quorum (2)"},
      {"a", false, "ack quorum (2)"},
      {"batch", false, "entries per Read() call (1000)"},
      {"rounds", false, "stream + client rounds (3)"},
      {"read-window", false, "the client's readWindow, entries (its default)"},
      {"open", false, "leave the ledger open, as a live writer's", true}};
  auto f = bkctl::ParseFlags(args, specs);
  if (!f.ok()) {
    std::cerr << "bkbench read: " << f.status().message() << "\n"
              << bkctl::FlagsUsage(specs);
    return kExitUsage;
  }
  std::vector<std::string> bad;
  auto num = [&](const char* name, int64_t def, int64_t lo, int64_t hi) {
    if (!f->Has(name)) return def;
    auto v = f->GetInt(name, lo, hi);
    if (!v.ok()) bad.emplace_back(v.status().message());
    return v.ok() ? *v : def;
  };
  const int bookies = static_cast<int>(num("bookies", 3, 1, 64));
  const int64_t entries = num("entries", 100000, 1, int64_t{1} << 32);
  const int size = static_cast<int>(num("entry-size", 1024, 16, 4 << 20));
  const int e = static_cast<int>(num("e", 3, 1, 64));
  const int w = static_cast<int>(num("w", 2, 1, 64));
  const int a = static_cast<int>(num("a", 2, 1, 64));
  const int64_t batch = num("batch", 1000, 1, int64_t{1} << 32);
  const int rounds = static_cast<int>(num("rounds", 3, 1, 1000));
  const int read_window = static_cast<int>(
      num("read-window", client::ClientOptions().read_window, 1, 10000));
  if (!bad.empty()) {
    std::cerr << "bkbench read: " << bad.front() << "\n";
    return kExitUsage;
  }
  if (f->Has("metadata-uri") == f->Has("local-cluster")) {
    std::cerr << "bkbench read: give one of --metadata-uri, --local-cluster\n";
    return kExitUsage;
  }

  std::unique_ptr<localcluster::LocalCluster> cluster;
  client::ClientOptions co;
  if (f->Has("local-cluster")) {
    localcluster::LocalClusterOptions lo;
    lo.dir = f->Get("local-cluster");
    lo.bookies = bookies;
    lo.racks = bookies;
    lo.zookeeper_port = 0;
    if (f->Has("bookie-config")) {
      auto lines = f->GetList("bookie-config");
      if (!lines.ok()) {
        std::cerr << "bkbench read: " << lines.status().message() << "\n";
        return kExitUsage;
      }
      if (absl::Status s = localcluster::CheckBookieConfigLines(*lines);
          !s.ok()) {
        std::cerr << "bkbench read: " << s.message() << "\n";
        return kExitUsage;
      }
      lo.extra_bookie_config = *lines;
    }
    lo.bookie_binary = f->Has("bookie-binary")
                           ? f->Get("bookie-binary")
                           : localcluster::BesideSelf("bookie");
    auto started = localcluster::LocalCluster::StartOnFreePorts(lo);
    if (!started.ok()) return Fail("local cluster", started.status());
    cluster = std::move(*started);
    co.metadata_service_uri = cluster->metadata_uri();
  } else {
    co.metadata_service_uri = f->Get("metadata-uri");
  }
  co.read_window = read_window;
  auto c = client::Client::Create(co);
  if (!c.ok()) return Fail("client", c.status());
  auto writer = (*c)->CreateLedger({.ensemble_size = e,
                                    .write_quorum = w,
                                    .ack_quorum = a,
                                    .password = "bench"});
  if (!writer.ok()) return Fail("create ledger", writer.status());
  const int64_t ledger = (*writer)->ledger_id();
  const absl::Time t0 = absl::Now();
  if (auto s = WriteLedger(writer->get(), entries, size); !s.ok()) {
    return Fail("write", s);
  }
  const double write_s = absl::ToDoubleSeconds(absl::Now() - t0);
  if (!f->GetBool("open")) {
    if (auto s = (*writer)->Close(); !s.ok()) return Fail("close", s);
  }
  std::printf(
      "ledger %lld: %lld entries of %d B, E%d/WQ%d/AQ%d, %s; written in "
      "%.2f s; Read() calls of %lld entries\n\n",
      static_cast<long long>(ledger), static_cast<long long>(entries), size, e,
      w, a, f->GetBool("open") ? "open" : "closed", write_s,
      static_cast<long long>(batch));
  // An open ledger is read up to the LAC a reader learns from the
  // bookies, which trails the writer's last entry by the adds whose
  // confirmation no later add has carried yet.
  int64_t readable = entries;
  if (f->GetBool("open")) {
    auto r = (*c)->OpenLedger(ledger, "bench", /*recover=*/false);
    if (!r.ok()) return Fail("open", r.status());
    auto lac = (*r)->ReadLac();
    if (!lac.ok()) return Fail("read LAC", lac.status());
    if (*lac < 0) {
      return Fail("read LAC", absl::FailedPreconditionError(
                                  "no entry confirmed to readers yet"));
    }
    readable = *lac + 1;
    std::printf("open ledger: the reader's LAC is %lld; %lld entries read\n\n",
                static_cast<long long>(readable - 1),
                static_cast<long long>(readable));
  }
  std::printf(
      "| round | stream entries/s | client entries/s | client / stream | "
      "stream CPU us/entry (bench, cluster) | client CPU us/entry (bench, "
      "cluster) | cores left |\n|---|---|---|---|---|---|---|\n");
  const std::vector<pid_t> pids =
      cluster ? cluster->RunningPids() : std::vector<pid_t>{};
  for (int round = 1; round <= rounds; ++round) {
    const CpuSnapshot s0 = TakeCpuSnapshot(pids);
    auto stream = MeasureReadCeiling(co, ledger, readable);
    const CpuSnapshot s1 = TakeCpuSnapshot(pids);
    if (!stream.ok()) return Fail("stream", stream.status());
    // Opened before the clock starts, as the stream connects before.
    auto reader = (*c)->OpenLedger(ledger, "bench", /*recover=*/false);
    if (!reader.ok()) return Fail("open", reader.status());
    const CpuSnapshot s1b = TakeCpuSnapshot(pids);
    auto read = ClientRead(reader->get(), readable, batch, size);
    const CpuSnapshot s2 = TakeCpuSnapshot(pids);
    if (!read.ok()) return Fail("client read", read.status());
    // The stream's own clock leaves out its connecting; the CPU account
    // spans it, a small overstatement of the stream's CPU.
    Measured sm = Account(s0, s1, readable);
    sm.entries_per_s = stream->entries_per_s;
    const Measured cm = Account(s1b, s2, readable);
    std::printf(
        "| %d | %.0f | %.0f | %.0f %% | %s, %s | %s, %s | %.2f |\n", round,
        sm.entries_per_s, cm.entries_per_s,
        sm.entries_per_s > 0 ? 100.0 * cm.entries_per_s / sm.entries_per_s
                             : 0.0,
        Us(sm.self_us).c_str(), Us(sm.others_us).c_str(),
        Us(cm.self_us).c_str(), Us(cm.others_us).c_str(), cm.cores_left);
    std::fflush(stdout);
  }
  // The ledger was the bench's own: a run against a cluster in use leaves
  // nothing behind (its data is then garbage collected).
  writer->reset();
  if (absl::Status s = (*c)->DeleteLedger(ledger); !s.ok()) {
    return Fail("delete ledger", s);
  }
  return 0;
}

}  // namespace bk::bkbench
