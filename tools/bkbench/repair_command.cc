// bkbench repair: the repair throughput of autorecovery. A local cluster
// (ZooKeeper + 5 bookies over --racks racks, by default one rack each, so
// that every fragment has two rack-safe replacements and the copies spread
// over the survivors) gets --mb MiB of entries in closed
// E3/WQ2/AQ2 ledgers; one bookie is SIGKILLed and autorecovery (auditor +
// --workers workers, in this process) runs until no ledger names it.
// Printed: the bytes re-replicated, MB/s and time to full replication,
// beside this disk's sequential write+fdatasync and read rates measured in
// the same run with O_DIRECT (disk_ceiling.h; the copy reads and writes
// every byte: its ceiling is 1 / (1/read + 1/write)) and one bookie's add
// ceiling; the CPU the copy took against the cores the machine left it
// (cpu_account.h); how the survivors took the recovery adds (messages,
// journal syncs: add_path_counters.h); and a probe writer's add p99
// before and during the repair.

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <iostream>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "autorecovery/autorecovery.h"
#include "autorecovery/ledgers_on_bookie.h"
#include "autorecovery/underreplication.h"
#include "client/client.h"
#include "metadata/metadata_store.h"
#include "tools/bkbench/add_path_counters.h"
#include "tools/bkbench/commands.h"
#include "tools/bkbench/cpu_account.h"
#include "tools/bkbench/disk_ceiling.h"
#include "tools/bkctl/flags.h"
#include "tools/localcluster/local_cluster.h"

namespace bk::bkbench {
namespace {

// CLOCK_MONOTONIC now, in seconds: the clock `perf record -k monotonic`
// stamps samples with, so a profile can be cut to the copy's window.
double MonotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

constexpr int kEntryBytes = 4096;

// Appends one entry every 5 ms to `w` until `stop` holds (at least one);
// returns the p99 in ms.
template <typename Stop>
double ProbeP99(client::LedgerWriter* w, Stop stop) {
  const std::string payload(kEntryBytes, 'p');
  std::vector<double> ms;
  do {
    const absl::Time t = absl::Now();
    if (!w->Append(payload).get().ok()) break;
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t));
    absl::SleepFor(absl::Milliseconds(5));
  } while (!stop());
  if (ms.empty()) return -1;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() * 99 / 100];
}

// Appends `mb` MiB of 4 KiB entries to `w` with 256 in flight; MiB/s, or
// -1 on a failed add.
double AppendRate(client::LedgerWriter* w, int mb) {
  const std::string payload(kEntryBytes, 'c');
  const int64_t n = int64_t{mb} * (1 << 20) / kEntryBytes;
  std::vector<std::future<absl::StatusOr<int64_t>>> acks;
  const absl::Time t0 = absl::Now();
  for (int64_t e = 0; e < n; ++e) {
    acks.push_back(w->Append(payload));
    if (acks.size() >= 256) {
      for (auto& a : acks) {
        if (!a.get().ok()) return -1;
      }
      acks.clear();
    }
  }
  for (auto& a : acks) {
    if (!a.get().ok()) return -1;
  }
  return mb / absl::ToDoubleSeconds(absl::Now() - t0);
}

// Where the metadata names a bookie: a segment's slot of a ledger.
struct Place {
  int64_t ledger;
  int segment;
  int slot;
};

absl::StatusOr<std::vector<Place>> PlacesOf(metadata::MetadataStore* store,
                                            const std::string& bookie) {
  auto ledgers = autorecovery::LedgersOnBookie(store, bookie);
  if (!ledgers.ok()) return ledgers.status();
  std::vector<Place> out;
  for (int64_t id : *ledgers) {
    auto md = store->ReadLedger(id);
    if (!md.ok()) return md.status();
    for (int s = 0; s < md->value.segments_size(); ++s) {
      const auto& seg = md->value.segments(s);
      for (int i = 0; i < seg.bookies_size(); ++i) {
        if (seg.bookies(i) == bookie) out.push_back({id, s, i});
      }
    }
  }
  return out;
}

// "bookie-0 3, bookie-2 4": how many of `places` each bookie holds now.
std::string Replacements(metadata::MetadataStore* store,
                         const std::vector<Place>& places) {
  std::map<std::string, int> count;
  for (const Place& p : places) {
    auto md = store->ReadLedger(p.ledger);
    if (!md.ok() || p.segment >= md->value.segments_size()) {
      ++count["(unreadable)"];
      continue;
    }
    ++count[md->value.segments(p.segment).bookies(p.slot)];
  }
  std::string out;
  for (const auto& [bookie, n] : count) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", bookie, " ", n);
  }
  return out;
}

}  // namespace

int RepairCommand(const std::vector<std::string>& args) {
  auto f = bkctl::ParseFlags(
      args, {{"dir", true, "working directory (cluster, ceiling file)"},
             {"bookie-binary", true, "path of the bookie executable"},
             {"mb", false, "MiB of entries written before the kill (256)"},
             {"rate-bytes", false, "replicationRateByBytes; 0 unthrottled"},
             {"batch", false, "rereplicationEntryBatchSize (100)"},
             {"workers", false, "autoRecoveryWorkers (the key's default)"},
             {"racks", false,
              "racks of the 5 bookies (5: one each; 3: the victim shares "
              "one with bookie-0, its only rack-safe replacement)"},
             {"zk-port", false, "ZooKeeper port (a free one)"}});
  if (!f.ok()) {
    std::cerr << "bkbench repair: " << f.status().message() << "\n";
    return kExitUsage;
  }
  auto num = [&](const char* name, int64_t def) -> int64_t {
    if (!f->Has(name)) return def;
    auto v = f->GetInt(name, 0, int64_t{1} << 40);
    return v.ok() ? *v : def;
  };
  const int mb = static_cast<int>(num("mb", 256));
  const int64_t rate = num("rate-bytes", 0);
  const int batch = static_cast<int>(num("batch", 100));
  const int workers = static_cast<int>(
      num("workers", autorecovery::AutoRecoveryOptions{}.workers));
  const int racks = static_cast<int>(num("racks", 5));
  const std::string dir = f->Get("dir");

  // The disk before anything else runs here, with O_DIRECT (no page
  // cache), three rounds; again after the repair, to show how steady it is.
  const int ceiling_mb = std::clamp(mb, 64, 256);
  auto disk = MeasureDisk(dir, ceiling_mb, 3);
  if (!disk.ok()) {
    std::cerr << "bkbench repair: cannot measure the disk in " << dir << ": "
              << disk.status().message() << "\n";
    return 1;
  }
  const double ceiling = disk->copy_ceiling();

  localcluster::LocalClusterOptions lo;
  lo.dir = dir + "/cluster";
  lo.bookie_binary = f->Get("bookie-binary");
  // Every port free ones (ZooKeeper's too unless --zk-port), so that two
  // runs, or a run beside a local cluster, do not collide.
  lo.zookeeper_port = static_cast<int>(num("zk-port", 0));
  lo.racks = std::max(1, racks);
  auto cluster = localcluster::LocalCluster::StartOnFreePorts(lo);
  if (!cluster.ok()) {
    std::cerr << "bkbench repair: " << cluster.status().message() << "\n";
    return 1;
  }
  const std::string uri = (*cluster)->metadata_uri();
  client::ClientOptions co;
  co.metadata_service_uri = uri;
  auto c = client::Client::Create(co);
  if (!c.ok()) return 1;

  // The data: 16 closed ledgers, mb MiB of 4 KiB entries in all. Written
  // with 256 adds in flight, which also measures what this cluster's add
  // path takes on this machine (each byte goes to WQ = 2 bookies).
  const int64_t entries = int64_t{mb} * (1 << 20) / kEntryBytes;
  const absl::Time load_start = absl::Now();
  const std::string payload(kEntryBytes, 'd');
  for (int l = 0; l < 16; ++l) {
    auto w = (*c)->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "bench"});
    if (!w.ok()) return 1;
    std::vector<std::future<absl::StatusOr<int64_t>>> acks;
    for (int64_t e = 0; e < entries / 16; ++e) {
      acks.push_back((*w)->Append(payload));
      if (acks.size() >= 256) {
        for (auto& a : acks) {
          if (!a.get().ok()) return 1;
        }
        acks.clear();
      }
    }
    for (auto& a : acks) {
      if (!a.get().ok()) return 1;
    }
    if (!(*w)->Close().ok()) return 1;
  }
  const double load_mbs = mb / absl::ToDoubleSeconds(absl::Now() - load_start);
  // One bookie's add ceiling: the copy writes everything it moves to the
  // replacements; with --racks 3 that is a single bookie (the rack rules
  // leave one choice), and the copy cannot beat this. A one-bookie ledger
  // (E = WQ = AQ = 1), deleted afterwards.
  double one_bookie_mbs = -1;
  {
    auto w = (*c)->CreateLedger({.ensemble_size = 1,
                                 .write_quorum = 1,
                                 .ack_quorum = 1,
                                 .password = "bench"});
    if (!w.ok()) return 1;
    one_bookie_mbs = AppendRate(w->get(), std::max(8, mb / 4));
    const int64_t id = (*w)->ledger_id();
    w->reset();
    if (!(*c)->DeleteLedger(id).ok()) return 1;
  }
  auto store = metadata::Open(uri);
  if (!store.ok()) return 1;
  const int victim = 3;
  const std::string gone = (*cluster)->bookies()[victim].id;
  // The probe writes to a ledger without the victim, so that what it sees
  // during the repair is the repair's load, not its own ensemble change.
  std::unique_ptr<client::LedgerWriter> probe_writer;
  for (int attempt = 0; attempt < 50 && probe_writer == nullptr; ++attempt) {
    auto w = (*c)->CreateLedger({.ensemble_size = 3,
                                 .write_quorum = 2,
                                 .ack_quorum = 2,
                                 .password = "bench"});
    if (!w.ok()) return 1;
    auto md = (*store)->ReadLedger((*w)->ledger_id());
    if (!md.ok()) return 1;
    const auto& b = md->value.segments(0).bookies();
    if (std::find(b.begin(), b.end(), gone) == b.end()) {
      probe_writer = std::move(*w);
    } else {
      // Not left open on the victim: the repair would wait out its grace.
      const int64_t id = (*w)->ledger_id();
      w->reset();
      if (!(*c)->DeleteLedger(id).ok()) return 1;
    }
  }
  if (probe_writer == nullptr) return 1;
  auto places = PlacesOf(store->get(), gone);
  if (!places.ok()) {
    std::cerr << "bkbench repair: " << places.status().message() << "\n";
    return 1;
  }
  const absl::Time before_end = absl::Now() + absl::Seconds(10);
  const double p99_before =
      ProbeP99(probe_writer.get(), [&] { return absl::Now() >= before_end; });

  (*cluster)->KillBookie(victim);
  const absl::Time t0 = absl::Now();
  autorecovery::AutoRecoveryOptions ao;
  ao.metadata_uri = uri;
  ao.id = "bkbench-repair";
  ao.poll_interval = absl::Milliseconds(100);
  ao.rereplication_entry_batch_size = batch;
  ao.workers = workers;
  ao.replication_rate_by_bytes = rate;
  ao.ledger_passwords = {"bench"};
  auto ar = autorecovery::AutoRecovery::Start(ao);
  if (!ar.ok()) return 1;
  // Detection (the killed bookie's session expiring), then the copy.
  autorecovery::UnderreplicationManager marks(store->get());
  while (true) {
    auto l = marks.List();
    if (l.ok() && !l->empty()) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  const absl::Time t_marked = absl::Now();
  const double mono_marked = MonotonicSeconds();
  // What the copy costs: CPU of this process and of the cluster's (ZooKeeper
  // and the surviving bookies), and how the survivors took its adds.
  const std::vector<pid_t> pids = (*cluster)->RunningPids();
  std::vector<std::string> survivors_http;
  for (int i = 0; i < static_cast<int>((*cluster)->bookies().size()); ++i) {
    if (i == victim) continue;
    survivors_http.push_back(
        absl::StrCat("127.0.0.1:", (*cluster)->bookies()[i].http_port));
  }
  const CpuSnapshot cpu_start = TakeCpuSnapshot(pids);
  const AddPathCounters adds_start = ScrapeAddPath(survivors_http);
  CpuSnapshot cpu_end = cpu_start;
  double mono_end = mono_marked;
  std::atomic<bool> done{false};
  auto probe = std::async(std::launch::async, [&] {
    return ProbeP99(probe_writer.get(), [&] { return done.load(); });
  });
  // The end: the last ledger repaired (the service's own count, polled
  // cheaply), once no ledger names the victim (a metadata scan, polled
  // slowly so as not to load the cluster the probe measures).
  absl::Time t1 = absl::Now();
  int64_t repaired = 0;
  absl::Time next_scan = absl::Now();
  while (true) {
    const int64_t now_repaired = (*ar)->stats().ledgers_repaired;
    if (now_repaired != repaired) {
      repaired = now_repaired;
      t1 = absl::Now();
      mono_end = MonotonicSeconds();
      cpu_end = TakeCpuSnapshot(pids);
    }
    if (absl::Now() >= next_scan) {
      // An unreadable ledger (a transient metadata error) is looked at
      // again at the next scan.
      auto left = autorecovery::LedgersOnBookie(store->get(), gone);
      if (left.ok() && left->empty()) break;
      next_scan = absl::Now() + absl::Milliseconds(200);
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  done = true;
  const double p99_during = probe.get();
  const AddPathCounters adds =
      Difference(adds_start, ScrapeAddPath(survivors_http));
  const CpuUse cpu = CpuBetween(cpu_start, cpu_end);
  // And once more with the repair over: the machine's other users move the
  // healthy figure by several times within minutes, so the copy's figure
  // is read against both sides of it.
  const absl::Time after_end = absl::Now() + absl::Seconds(10);
  const double p99_after =
      ProbeP99(probe_writer.get(), [&] { return absl::Now() >= after_end; });
  (void)probe_writer->Close();
  const absl::Duration took = t1 - t0;
  const absl::Duration copy = t1 - t_marked;
  const auto st = (*ar)->stats();
  (*ar)->Stop();
  const double mib = st.bytes_rereplicated / 1048576.0;
  const double mbs = mib / absl::ToDoubleSeconds(copy);
  const std::string moved_to = Replacements(store->get(), *places);
  auto disk_after = MeasureDisk(dir, ceiling_mb, 3);
  // The bound the machine puts on the copy. When its CPUs were all busy
  // over the copy, the copy could only have gone faster by needing less
  // CPU per byte: at this CPU per MiB, the cores the other users left
  // allow cores_left / cpu_per_mib, and the whole machine cpus /
  // cpu_per_mib (with ZooKeeper's share left out: the figure for a warm
  // ZooKeeper elsewhere). The copy's own CPU includes the probe writer's.
  const double cpu_per_mib = mib > 0 ? cpu.ours() / mib : -1;
  // RunningPids lists ZooKeeper first.
  const double zk_s = cpu.per_pid_s.empty() ? 0 : cpu.per_pid_s[0];
  const double busy_pct =
      cpu.wall_s > 0 ? 100 * cpu.machine_s / (cpu.cpus * cpu.wall_s) : -1;
  const double no_zk_per_mib = mib > 0 ? (cpu.ours() - zk_s) / mib : -1;
  auto allows = [](double cores, double per_mib) {
    return per_mib > 0 ? cores / per_mib : -1;
  };
  std::cout << absl::StrFormat(
      "disk: %s\n"
      "  copy ceiling 1/(1/r+1/w) of the medians = %.0f MB/s; after the "
      "repair: %s\n"
      "repair: %d MiB written, bookie %s killed; %lld fragments, %.1f MiB "
      "re-replicated; kill to full replication %.1f s (detection %.1f s), "
      "first mark to full replication %.1f s = %.1f MB/s = %.0f %% of the "
      "ceiling (throttle %s, batch %d, workers %d, %d racks)\n"
      "fragments moved to: %s\n"
      "cluster add path while loading: %.0f MB/s of entries (x2 replicas); "
      "one bookie's add ceiling %.0f MB/s (repair at %.0f %% of it)\n"
      "CPU over the copy (%.2f s): this process %.2f s + cluster %.2f s "
      "(ZooKeeper %.2f s, bookies %.2f s) = "
      "%.1f ms per copied MiB (%.1f without ZooKeeper); machine busy "
      "%.2f s of %d CPUs = %.0f %% (others %.2f s), leaving %.2f cores; at "
      "this CPU per MiB those cores allow %.0f MB/s, all %d cores %.0f MB/s, "
      "all %d without ZooKeeper %.0f MB/s\n"
      "survivors' add path during the copy: %s\n"
      "probe add p99: %.2f ms before, %.2f ms during the copy (%.1fx), "
      "%.2f ms after (%.1fx)\n"
      "copy window, CLOCK_MONOTONIC (perf record -k monotonic): "
      "%.3f,%.3f\n",
      disk->ToString(), ceiling,
      disk_after.ok() ? disk_after->ToString()
                      : std::string(disk_after.status().message()),
      mb, gone, static_cast<long long>(st.fragments_rereplicated), mib,
      absl::ToDoubleSeconds(took), absl::ToDoubleSeconds(t_marked - t0),
      absl::ToDoubleSeconds(copy), mbs, 100 * mbs / ceiling,
      rate > 0 ? absl::StrCat(rate, " B/s") : std::string("off"), batch,
      workers, lo.racks, moved_to, load_mbs, one_bookie_mbs,
      one_bookie_mbs > 0 ? 100 * mbs / one_bookie_mbs : 0.0, cpu.wall_s,
      cpu.self_s, cpu.others_s, zk_s, cpu.others_s - zk_s, 1000 * cpu_per_mib,
      1000 * no_zk_per_mib, cpu.machine_s, cpu.cpus, busy_pct,
      cpu.machine_s - cpu.ours(), cpu.cores_left(),
      allows(cpu.cores_left(), cpu_per_mib), cpu.cpus,
      allows(cpu.cpus, cpu_per_mib), cpu.cpus, allows(cpu.cpus, no_zk_per_mib),
      adds.ToString(), p99_before, p99_during,
      p99_before > 0 ? p99_during / p99_before : 0.0, p99_after,
      p99_after > 0 ? p99_during / p99_after : 0.0, mono_marked, mono_end);
  return 0;
}

}  // namespace bk::bkbench
