// bookie_add_bench: the bookie's add path against the RPC stack's ceiling,
// in one run.
//
//   bookie_add_bench [--seconds=5] [--streams=2] [--batch=64] [--size=1024]
//                    [--window=4096] [--disk_dir=/var/tmp] [--shm_dir=/dev/shm]
//                    [--only=echo,floor,dfloor,shm,disk]
//                    [--deadlock_detection=false]
//                    [--write_cache_mb=256] [--malloc_tuning=true]
//                    [--drop_pages=default|off|on|both]
//                    [--entry_log_direct=default|off|on|both]
//                    [--journal_group_kb=N] [--journal_prealloc_kb=N]
//
// (a) echo: bookie/echo/echo_service.h, the Bookie service whose AddEntries
//     answers every entry EOK at once, with the add path's stream structure
//     (one read in flight, answers accumulated and written one at a time).
//     Same messages, same batching, same client: the RPC stack's ceiling.
// (f) floor: the echo with bench/add_floor.h behind it: per batch the least
//     storage work any add path that journals and stores each entry does
//     (CRC, journal write and sync on --shm_dir, entry-log write on
//     --disk_dir; no write cache, index, hand-off or checks). What shm could
//     reach at best: "shm / floor" says how much of it the bookie does.
// (d) dfloor, the durable floor: the floor whose entry log also reaches the
//     disk (written behind a MiB at a time, pages dropped, synced every 64
//     MiB), which the plain floor's never does on a machine with this much
//     memory. Its CPU per add beyond the floor's is what a durable entry
//     log costs; its rate bounds nothing, since it waits for the disk on
//     the receiving thread where a bookie's flush thread waits off it.
// (b) shm: the real service over the real store (journal, write cache, entry
//     log, RocksDB index), journal on tmpfs (--shm_dir), ledgers on disk.
// (c) disk: the same with the journal on disk (--disk_dir); fdatasync's
//     regime is probed before and after and printed.
// --drop_pages: the shm and disk runs with journalRemoveFromPageCache and
//     entryLogRemoveFromPageCache as the bookie's defaults (default: both
//     on), both off, both on, or both off then both on in the same run,
//     for a same-run comparison.
// --entry_log_direct: the same for entryLogDirectIo (the entry log written
//     with O_DIRECT); with both flags at "both", every combination.
// --journal_group_kb, --journal_prealloc_kb: the journal's
//     buffered_writes_threshold_bytes and preallocate_bytes for the shm and
//     disk runs (default: the journal's own).
// First it prints what this machine charges for a system call, a page's
// first write and a thread wake-up (bench/vm_costs.h): on a VM these, not
// the code, set much of the distance between echo and shm.
// Client and server share the process (and this machine's two vCPUs). Each
// client stream keeps up to --window entries in flight in batches of
// --batch. Reports adds/s, p50/p99/p999 add latency (batch sent -> entry
// answered), CPU seconds per add (getrusage: client and server), and the
// ratio of (b) and (c) to (a). Not a test: it asserts nothing.
// The echo parses the same AddRequest and serialises the same AddResponse
// as the bookie's stream (gRPC's protobuf codec in both); what it skips is
// the store: checks, CRC, write cache, journal, completion, flush.
//
// Figures (2 vCPUs shared with other builds, load about 5; one session,
// before and after interleaved, two runs each):
//   build/bin/bookie_add_bench --seconds=5 --batch=64 --size=1024|16384
// "before" is main at 7e1f5eb; "after" is branch addpath, which sets the
// malloc thresholds of TuneMalloc (common/malloc_tuning.h) for the whole
// process, so its echo runs faster too.
//
//   1 KiB    echo/s      shm/s      ratio    shm cpu/add  shm p50 / p99
//   before   1.15-1.17M  227-237k   19-21 %  5.4 us       26 / 162-201 ms
//   after    1.17-1.35M  285-304k   23-24 %  3.6-3.7 us   17 / 188-194 ms
//   (echo cpu/add 1.2-1.3 us; disk, fdatasync slow regime: before 201-209k
//   at 5.6-6.0 us/add, p99 97-118 ms; after 266-275k at 4.1-4.3 us/add,
//   p99 85-93 ms)
//   16 KiB   echo/s      shm/s      ratio    shm cpu/add  shm p99
//   before   87-91k      17.3-28.0k 19-32 %  50-59 us     0.66-0.76 s
//   after    98-135k     21.9-35.0k 22-26 %  41-46 us     0.39-0.87 s
//   (echo cpu/add 12-18 us; disk: before 15.0-24.1k at 58-69 us/add,
//   after 16.9-29.3k at 48 us/add; fdatasync turned fast mid-way)
// The bookie's CPU per add beyond echo's fell from 4.2 to 2.4 us (1 KiB).
// p99 is set by write-cache throttling: a 128 MiB half fills about as fast
// as the single flusher writes, syncs and indexes the other one.
//
// Where the shm add's CPU goes beyond echo's (perf record -g, 1 KiB, after
// the batch push): copying entries into the entry log's page cache (ext4,
// buffered, from buffers that went cold in the write cache) 24 % of all
// samples, RocksDB index puts 9 %, journal on tmpfs 13 % (copy 5 %,
// preallocation zeroing 4 %, freeing removed files' pages 3 %), CRC32C 4 %
// (the client's digest pass and the bookie's one pass), malloc 5 %; the
// rest (TCP, gRPC) is echo's too. The per-entry completion (3 %) has since
// become one per batch. At 16 KiB the entry-log copy is 30 % and CRC 7 %.
// Earlier profile (main): the same plus
// WriteCache::Put 4-6 %, a second CRC pass per entry, a journal queue push,
// clock read and lock per entry, and malloc trimming / page faults
// (about 0.8 us per add).

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <prometheus/registry.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "bench/add_floor.h"
#include "bench/vm_costs.h"
#include "bookie/daemon/bookie_metrics.h"
#include "bookie/echo/echo_service.h"
#include "bookie/echo/stream_load.h"
#include "bookie/engine/bookie_store_impl.h"
#include "bookie/service/bookie_service.h"
#include "bookie/service/grpc_server.h"
#include "bookie/service/service_probe.h"
#include "bookie/storage/entry_block_pool.h"
#include "common/malloc_tuning.h"
#include "proto/entry_format.h"

namespace bk::bookie {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  double seconds = 5;
  int streams = 2;
  int batch = 64;
  size_t size = 1024;
  int64_t window = 4096;
  std::string disk_dir = "/var/tmp";
  std::string shm_dir = "/dev/shm";
  std::string only = "echo,floor,dfloor,shm,disk";
  bool deadlock_detection = false;
  uint64_t write_cache_mb = 256;
  bool malloc_tuning = true;
  std::string drop_pages = "default";        // default | off | on | both
  std::string entry_log_direct = "default";  // default | off | on | both
  int64_t journal_prealloc_kb = -1;          // -1: the journal's default
  int64_t journal_group_kb = -1;             // -1: the journal's default
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "bookie_add_bench: %s\nflags (each --name=value): seconds, "
               "streams, batch, size, window, disk_dir, shm_dir, only "
               "(echo,floor,dfloor,shm,disk), deadlock_detection, "
               "write_cache_mb, "
               "malloc_tuning (true|false), drop_pages "
               "(default|off|on|both), entry_log_direct "
               "(default|off|on|both), journal_group_kb, journal_prealloc_kb\n",
               why.c_str());
  std::exit(2);
}

bool ParseBool(const std::string& k, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  Usage("--" + k + " takes true or false, not '" + v + "'");
}

// Whole-string numbers; anything else is a usage error, not a default.
template <typename T>
T ParseNumber(const std::string& k, const std::string& v, T min) {
  T out{};
  bool ok;
  if constexpr (std::is_floating_point_v<T>) {
    ok = absl::SimpleAtod(v, &out);
  } else {
    ok = absl::SimpleAtoi(v, &out);
  }
  if (!ok || out < min) {
    Usage("--" + k + " needs a number >= " + std::to_string(min) + ", not '" +
          v + "'");
  }
  return out;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos) {
      Usage("unexpected argument '" + a + "'");
    }
    std::string k = a.substr(2, eq - 2), v = a.substr(eq + 1);
    if (k == "seconds") {
      f.seconds = ParseNumber<double>(k, v, 0.1);
    } else if (k == "streams") {
      f.streams = ParseNumber<int>(k, v, 1);
    } else if (k == "batch") {
      f.batch = ParseNumber<int>(k, v, 1);
    } else if (k == "size") {
      f.size = ParseNumber<size_t>(k, v, 1);
    } else if (k == "window") {
      f.window = ParseNumber<int64_t>(k, v, 1);
    } else if (k == "disk_dir") {
      f.disk_dir = v;
    } else if (k == "shm_dir") {
      f.shm_dir = v;
    } else if (k == "only") {
      f.only = v;
      for (absl::string_view p : absl::StrSplit(v, ',')) {
        if (p != "echo" && p != "floor" && p != "dfloor" && p != "shm" &&
            p != "disk") {
          Usage("--only takes echo, floor, dfloor, shm and disk, not '" +
                std::string(p) + "'");
        }
      }
    } else if (k == "deadlock_detection") {
      f.deadlock_detection = ParseBool(k, v);
    } else if (k == "write_cache_mb") {
      f.write_cache_mb = ParseNumber<uint64_t>(k, v, 1);
    } else if (k == "malloc_tuning") {
      f.malloc_tuning = ParseBool(k, v);
    } else if (k == "drop_pages") {
      if (v != "default" && v != "off" && v != "on" && v != "both") {
        Usage("--drop_pages takes default, off, on or both, not '" + v + "'");
      }
      f.drop_pages = v;
    } else if (k == "journal_group_kb") {
      f.journal_group_kb = ParseNumber<int64_t>(k, v, 4);
    } else if (k == "journal_prealloc_kb") {
      f.journal_prealloc_kb = ParseNumber<int64_t>(k, v, 4);
    } else if (k == "entry_log_direct") {
      if (v != "default" && v != "off" && v != "on" && v != "both") {
        Usage("--entry_log_direct takes default, off, on or both, not '" + v +
              "'");
      }
      f.entry_log_direct = v;
    } else {
      Usage("unknown flag --" + k);
    }
  }
  return f;
}

// What the runs report.
StreamLoadOptions LoadOf(const Flags& f) {
  StreamLoadOptions o;
  o.seconds = f.seconds;
  o.streams = f.streams;
  o.batch = f.batch;
  o.entry_size = f.size;
  o.window = f.window;
  return o;
}

struct Line {
  std::string name;
  double adds_per_s = 0;
  double cpu_us_per_add = 0;
};

Line Report(const std::string& name, StreamLoadResult r, size_t entry_size) {
  Line l{name, r.AddsPerSecond(),
         r.adds > 0 ? r.cpu_seconds / r.adds * 1e6 : 0.0};
  const double p50 = r.PercentileUs(0.50);
  const double p99 = r.PercentileUs(0.99);
  const double p999 = r.PercentileUs(0.999);
  std::printf(
      "%-9s %9.0f adds/s  %6.1f MB/s  p50 %7.0f us  p99 %7.0f us  p999 %7.0f "
      "us  cpu %5.1f us/add  errors %lld\n",
      name.c_str(), l.adds_per_s, l.adds_per_s * entry_size / 1e6, p50, p99,
      p999, l.cpu_us_per_add, static_cast<long long>(r.errors));
  std::fflush(stdout);
  return l;
}

// ---------------------------------------------------------------- fsync

// Median latency of a 4 KiB pwrite + fdatasync in `dir`.
double ProbeSyncUs(const std::string& dir) {
  const std::string path = dir + "/bk_add_bench_probe";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  std::string block(4096, 'p');
  std::vector<double> us;
  for (int i = 0; i < 200; ++i) {
    const auto t = Clock::now();
    if (pwrite(fd, block.data(), block.size(), (i % 64) * 4096) < 0) break;
    fdatasync(fd);
    us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  close(fd);
  unlink(path.c_str());
  if (us.empty()) return -1;
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

void PrintSync(const char* when, const std::string& dir) {
  const double us = ProbeSyncUs(dir);
  std::printf("fdatasync %s (%s): median %.0f us -> %s regime\n", when,
              dir.c_str(), us,
              us < 0 ? "unknown" : (us < 1500 ? "fast" : "slow (~4 ms)"));
}

// ---------------------------------------------------------------- runs

StreamLoadResult RunEcho(const Flags& f) {
  auto server = StartEchoServer();
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    std::exit(1);
  }
  return RunStreamLoad(absl::StrCat("127.0.0.1:", (*server)->port), LoadOf(f));
}

StreamLoadResult RunFloor(const Flags& f, bool write_back) {
  auto floor = AddFloor::Open(f.shm_dir, f.disk_dir, write_back);
  if (!floor.ok()) {
    std::fprintf(stderr, "%s\n", floor.status().ToString().c_str());
    std::exit(1);
  }
  auto server = StartEchoServer(floor->get());
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    std::exit(1);
  }
  StreamLoadResult r =
      RunStreamLoad(absl::StrCat("127.0.0.1:", (*server)->port), LoadOf(f));
  server->reset();  // before the sink it uses
  return r;
}

// `drop_pages`, `direct`: unset keeps the store's defaults.
StreamLoadResult RunBookie(const Flags& f, const std::string& journal_base,
                           const std::string& ledger_base,
                           std::optional<bool> drop_pages,
                           std::optional<bool> direct) {
  const std::string jdir =
      absl::StrCat(journal_base, "/bk_add_bench_journal.", getpid());
  const std::string ldir =
      absl::StrCat(ledger_base, "/bk_add_bench_ledgers.", getpid());
  std::filesystem::remove_all(jdir);
  std::filesystem::remove_all(ldir);
  StreamLoadResult r;
  {
    auto registry = std::make_shared<prometheus::Registry>();
    JournalProbe journal_probe(*registry, "bench");
    ServiceProbe service_probe(*registry, "bench");
    StoreOptions so;
    so.journal.dirs = {jdir};
    so.journal.observer = &journal_probe;
    if (f.journal_group_kb > 0) {
      so.journal.buffered_writes_threshold_bytes = uint64_t(f.journal_group_kb)
                                                   << 10;
    }
    if (f.journal_prealloc_kb > 0) {
      so.journal.preallocate_bytes = uint64_t(f.journal_prealloc_kb) << 10;
    }
    so.storage.ledger_dirs = {ldir};
    so.storage.write_cache_bytes = f.write_cache_mb << 20;
    if (drop_pages.has_value()) {
      so.journal.remove_from_page_cache = *drop_pages;
      so.storage.entry_log_remove_from_page_cache = *drop_pages;
    }
    if (direct.has_value()) so.storage.entry_log_direct_io = *direct;
    auto store = BookieStoreImpl::Open(Env::Default(), so);
    if (!store.ok()) {
      std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
      std::exit(1);
    }
    ServiceOptions svc;
    svc.max_pending_adds = 1 << 20;
    // As the daemon does (writeCachePreTouch): entry blocks reserved and
    // touched before the load.
    auto blocks = EntryBlockPool::Create(so.storage.write_cache_bytes, true);
    if (!blocks.ok()) {
      std::fprintf(stderr, "%s\n", blocks.status().ToString().c_str());
      std::exit(1);
    }
    svc.entry_blocks = *std::move(blocks);
    BookieServiceImpl service(
        store->get(), svc,
        [](uint64_t) { return proto::GetBookieInfoResponse(); },
        &service_probe);
    GrpcServerOptions go;
    go.address = "127.0.0.1:0";
    auto server = GrpcServer::Start(&service, go);
    if (!server.ok()) std::exit(1);
    r = RunStreamLoad(absl::StrCat("127.0.0.1:", (*server)->port()), LoadOf(f));
    (*server)->Shutdown(absl::Seconds(5));
    (*store)->Close().IgnoreError();
  }
  std::filesystem::remove_all(jdir);
  std::filesystem::remove_all(ldir);
  return r;
}

int Main(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv);
  // As the bookie's main() does (Debian's Abseil has it on).
  if (!f.deadlock_detection)
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // As the bookie's main() does; applies to the echo run as well.
  if (f.malloc_tuning) TuneMalloc();
  f.window = std::min<int64_t>(f.window, (1 << 20) - f.batch);
  std::printf(
      "bookie_add_bench: %d streams x window %lld, batches of %d x %zu B "
      "entries, %.0f s per run; client and server in one process\n",
      f.streams, static_cast<long long>(f.window), f.batch, f.size, f.seconds);
  // What the kernel and the hypervisor charge here (bench/vm_costs.h).
  std::printf("%s\n", bench::FormatVmCosts(bench::MeasureVmCosts()).c_str());
  auto want = [&](const char* n) {
    for (absl::string_view p : absl::StrSplit(f.only, ','))
      if (p == n) return true;
    return false;
  };
  double echo = 0;
  if (want("echo")) {
    // Warm up gRPC (thread pools, first connection) before measuring.
    Flags warm = f;
    warm.seconds = 1;
    RunEcho(warm);
    echo = Report("echo", RunEcho(f), f.size).adds_per_s;
  }
  double floor = 0;
  double floor_cpu = 0;
  if (want("floor")) {
    const Line l = Report("floor", RunFloor(f, false), f.size);
    floor = l.adds_per_s;
    floor_cpu = l.cpu_us_per_add;
    if (echo > 0) {
      std::printf("floor / echo = %.0f %% (no bookie's shm run can pass it)\n",
                  100 * floor / echo);
    }
  }
  if (want("dfloor")) {
    const Line d = Report("dfloor", RunFloor(f, true), f.size);
    if (floor > 0 && d.adds_per_s > 0) {
      std::printf(
          "dfloor - floor = %.1f us of CPU per add: the entry log's "
          "write-back, page drops and syncs\n",
          d.cpu_us_per_add - floor_cpu);
    }
  }
  auto choices = [](const std::string& v) {
    std::vector<std::optional<bool>> out;
    if (v == "default") out.push_back(std::nullopt);
    if (v == "off" || v == "both") out.push_back(false);
    if (v == "on" || v == "both") out.push_back(true);
    return out;
  };
  std::vector<std::pair<std::optional<bool>, std::optional<bool>>> runs;
  for (std::optional<bool> drop : choices(f.drop_pages)) {
    for (std::optional<bool> direct : choices(f.entry_log_direct)) {
      runs.emplace_back(drop, direct);
    }
  }
  for (const auto& [drop, direct] : runs) {
    const std::string tag = absl::StrCat(
        !drop.has_value() ? "" : (*drop ? "+drop" : "-drop"),
        !direct.has_value() ? "" : (*direct ? "+direct" : "-direct"));
    if (want("shm")) {
      const double v =
          Report("shm" + tag, RunBookie(f, f.shm_dir, f.disk_dir, drop, direct),
                 f.size)
              .adds_per_s;
      if (echo > 0) {
        std::printf("shm%s / echo = %.0f %% (target >= 40 %%)\n", tag.c_str(),
                    100 * v / echo);
      }
      if (floor > 0) {
        std::printf("shm%s / floor = %.0f %%\n", tag.c_str(), 100 * v / floor);
      }
    }
    if (want("disk")) {
      PrintSync("before disk run", f.disk_dir);
      const double v =
          Report("disk" + tag,
                 RunBookie(f, f.disk_dir, f.disk_dir, drop, direct), f.size)
              .adds_per_s;
      PrintSync("after disk run", f.disk_dir);
      if (echo > 0) {
        std::printf("disk%s / echo = %.0f %%\n", tag.c_str(), 100 * v / echo);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace bk::bookie

int main(int argc, char** argv) { return bk::bookie::Main(argc, argv); }
