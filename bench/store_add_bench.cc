// store_add_bench: the bookie's whole add path (BookieStoreImpl: ledger
// rules, write cache, journal group commit, flush to entry logs) against
// this machine's ceiling on the same directory.
//
//   store_add_bench [dir=/var/tmp/bk_store_bench] [seconds_per_run=3]
//
// For 1 KiB and 16 KiB entries: many producers, each with a window of adds
// in flight to its own ledger (as pipelined client streams would be).
// Reports adds/s, MB/s, p50/p99/p999 add latency, CPU seconds per add,
// heap allocations per add (the packaged entry itself is one), lock waits
// per add (absl::Mutex contention events, the journal queue hand-off
// included), RSS against the configured cache budgets, and the journal's
// write rate as a share of raw pwrite + fdatasync at the same group size on
// the same directory (measured before and after, with the fsync regime).
// Not a test: it asserts nothing.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bookie/engine/bookie_store_impl.h"
#include "common/alloc/alloc_counter.h"
#include "common/measure.h"
#include "proto/entry_format.h"

namespace bk::bookie {
namespace {

using measure::Clock;
using measure::Seconds;

// The ceiling, or the end of the process with the error: a benchmark has no
// one to return it to.
measure::Ceiling CeilingOrExit(const std::string& dir, size_t group,
                               double seconds) {
  auto c = measure::MeasureCeiling(dir, group, seconds);
  if (!c.ok()) {
    std::fprintf(stderr, "store_add_bench: ceiling: %s\n",
                 c.status().ToString().c_str());
    std::exit(1);
  }
  return *c;
}

std::atomic<uint64_t> g_lock_waits{0};
void CountWait(int64_t) {
  g_lock_waits.fetch_add(1, std::memory_order_relaxed);
}

int64_t RssKiB(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

struct Producer {
  absl::Mutex mu;
  int in_flight ABSL_GUARDED_BY(mu) = 0;
  std::vector<double> latency_us;  // appended under mu
  uint64_t done ABSL_GUARDED_BY(mu) = 0;
  uint64_t failed ABSL_GUARDED_BY(mu) = 0;
};

struct Result {
  double adds_per_s = 0, mb_per_s = 0, p50 = 0, p99 = 0, p999 = 0;
  double cpu_us_per_add = 0, allocs_per_add = 0, large_per_add = 0;
  double lock_waits_per_add = 0, journal_mb_per_s = 0, avg_group_kib = 0;
  uint64_t failed = 0;
  int64_t rss_kib = 0;
};

Result Run(const std::string& dir, size_t entry_bytes, int producers,
           int window, double seconds) {
  Env* env = Env::Default();
  env->RemoveDirRecursive(dir).IgnoreError();
  StoreOptions o;
  o.journal.dirs = {dir + "/journal"};
  o.storage.ledger_dirs = {dir + "/ledgers"};
  o.storage.gc_wait_time = absl::ZeroDuration();
  auto store = BookieStoreImpl::Open(env, o);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    std::exit(1);
  }
  const std::string payload(entry_bytes, 'p');
  std::vector<std::unique_ptr<Producer>> ps;
  for (int i = 0; i < producers; ++i)
    ps.push_back(std::make_unique<Producer>());
  std::atomic<bool> stop{false};
  const JournalStats j0 = (*store)->journal_stats();
  const uint64_t a0 = alloc::Allocations(), l0 = alloc::LargeAllocations();
  const uint64_t w0 = g_lock_waits.load();
  const double cpu0 = measure::CpuSeconds();
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < producers; ++i) {
    threads.emplace_back([&, i] {
      Producer* p = ps[i].get();
      const uint64_t ledger = static_cast<uint64_t>(i) + 1;
      std::pair<Producer*, int> room_arg(p, window);
      const absl::Condition room(
          +[](std::pair<Producer*, int>* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return a->first->in_flight < a->second;
          },
          &room_arg);
      for (int64_t e = 0; !stop.load(std::memory_order_relaxed); ++e) {
        {
          absl::MutexLock l(&p->mu);
          p->mu.Await(room);
          ++p->in_flight;
        }
        entry::EntryHeader h{ledger, e, e - 1, 0};
        AddArgs args{ledger, e, "key", false};
        const auto t0 = Clock::now();
        (*store)->AddEntry(args,
                           MakeEntryBuffer(entry::Package(
                               h, payload, entry::DigestType::kCrc32c)),
                           [p, t0](absl::Status s) {
                             const double us = Seconds(Clock::now() - t0) * 1e6;
                             absl::MutexLock l(&p->mu);
                             --p->in_flight;
                             ++p->done;
                             if (!s.ok()) ++p->failed;
                             p->latency_us.push_back(us);
                           });
      }
    });
  }
  while (Seconds(Clock::now() - start) < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop = true;
  for (auto& t : threads) t.join();
  for (auto& p : ps) {
    absl::MutexLock l(&p->mu);
    p->mu.Await(absl::Condition(
        +[](Producer* q)
             ABSL_NO_THREAD_SAFETY_ANALYSIS { return q->in_flight == 0; },
        p.get()));
  }
  const double el = Seconds(Clock::now() - start);
  const double cpu = measure::CpuSeconds() - cpu0;
  const uint64_t allocs = alloc::Allocations() - a0;
  const uint64_t large = alloc::LargeAllocations() - l0;
  const uint64_t waits = g_lock_waits.load() - w0;
  const JournalStats j1 = (*store)->journal_stats();
  Result r;
  r.rss_kib = RssKiB("VmHWM:");
  std::vector<double> lat;
  uint64_t done = 0;
  for (auto& p : ps) {
    absl::MutexLock l(&p->mu);
    done += p->done;
    r.failed += p->failed;
    lat.insert(lat.end(), p->latency_us.begin(), p->latency_us.end());
  }
  r.adds_per_s = done / el;
  r.mb_per_s = done * static_cast<double>(entry_bytes) / el / 1e6;
  r.p50 = measure::Percentile(&lat, 0.5);
  r.p99 = measure::Percentile(&lat, 0.99);
  r.p999 = measure::Percentile(&lat, 0.999);
  r.cpu_us_per_add = cpu / done * 1e6;
  r.allocs_per_add = static_cast<double>(allocs) / done;
  r.large_per_add = static_cast<double>(large) / done;
  r.lock_waits_per_add = static_cast<double>(waits) / done;
  const uint64_t jbytes = j1.bytes_written - j0.bytes_written;
  const uint64_t groups = j1.groups_written - j0.groups_written;
  r.journal_mb_per_s = jbytes / el / 1e6;
  r.avg_group_kib = groups ? jbytes / 1024.0 / groups : 0;
  (*store)->Close().IgnoreError();
  store->reset();
  env->RemoveDirRecursive(dir).IgnoreError();
  return r;
}

}  // namespace
}  // namespace bk::bookie

int main(int argc, char** argv) {
  using namespace bk::bookie;
  const std::string dir = argc > 1 ? argv[1] : "/var/tmp/bk_store_bench";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  const int producers = 16, window = 64;
  // As the bookie daemon does (bookie/daemon/bookie_main.cc): no lock-graph
  // bookkeeping on every Mutex operation (it was 1.4 % of this benchmark's
  // CPU).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::RegisterMutexProfiler(&CountWait);
  if (!bk::Env::Default()->CreateDirRecursive(dir).ok()) return 1;
  auto before = CeilingOrExit(dir, 512 * 1024, 2.0);
  std::printf(
      "store_add_bench: dir %s, %d producers x %d in flight, %.1f s per run\n"
      "ceiling before: 512 KiB groups %.0f MB/s; 4 KiB fdatasync %.2f ms: %s\n",
      dir.c_str(), producers, window, seconds, before.mb_per_s,
      before.small_sync_ms, bk::measure::Regime(before.small_sync_ms));
  std::printf("\n%-6s %9s %7s %8s %8s %9s %9s %9s %8s %9s %9s %8s %9s\n",
              "entry", "adds/s", "MB/s", "p50 us", "p99 us", "p999 us",
              "cpu us/a", "allocs/a", ">=1K/a", "lockw/a", "grp KiB", "jrnl%",
              "RSS MiB");
  for (size_t bytes : {size_t{1024}, size_t{16 * 1024}}) {
    Result r = Run(dir + "/store", bytes, producers, window, seconds);
    auto same = CeilingOrExit(
        dir,
        std::max<size_t>(static_cast<size_t>(r.avg_group_kib * 1024), 4096),
        1.5);
    std::printf(
        "%-6s %9.0f %7.1f %8.0f %8.0f %9.0f %9.1f %9.2f %8.2f %9.3f %9.0f "
        "%7.0f%% %9.0f%s\n",
        bytes == 1024 ? "1KiB" : "16KiB", r.adds_per_s, r.mb_per_s, r.p50,
        r.p99, r.p999, r.cpu_us_per_add, r.allocs_per_add, r.large_per_add,
        r.lock_waits_per_add, r.avg_group_kib,
        100 * r.journal_mb_per_s / same.mb_per_s, r.rss_kib / 1024.0,
        r.failed ? " (failures!)" : "");
  }
  auto after = CeilingOrExit(dir, 512 * 1024, 2.0);
  std::printf(
      "\nceiling after: 512 KiB groups %.0f MB/s; 4 KiB fdatasync %.2f ms: %s\n"
      "jrnl%% = journal MB/s over raw pwrite+fdatasync of the journal's own "
      "average group size on the same dir (preallocated, like journal "
      "files). Caches: write 64 MiB, read 64 MiB (defaults).\n"
      "allocs/a counts every heap allocation per add, the packaged entry "
      "(>=1K/a for 1 KiB+ entries) included; the payload is never copied "
      "between layers.\n",
      after.mb_per_s, after.small_sync_ms,
      bk::measure::Regime(after.small_sync_ms));
  bk::Env::Default()->RemoveDirRecursive(dir).IgnoreError();
  return 0;
}
