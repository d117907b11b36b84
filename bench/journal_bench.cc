// journal_bench: the journal's add path against this machine's ceiling.
//
//   journal_bench [dir=/var/tmp/bk_journal_bench] [seconds_per_run=3]
//       [batch | pagecache | syncs [background_mb_per_s=150]]
//
// 1. Ceiling: pwrite + fdatasync of 512 KiB groups (journalBufferedWrites-
//    Threshold) in `dir`, before and after the journal runs, through the
//    page cache and with O_DIRECT, appending to a fresh file and
//    overwriting written blocks; the higher of cache and direct is the
//    ceiling of each. Plus the latency of a small fdatasync, which tells
//    this VM's fsync regime.
// 2. Journal: many producer threads, each with a window of adds in flight
//    (like pipelined gRPC streams), 1 KiB and 16 KiB entries, default
//    group-commit options, writes through the page cache into reused files
//    (the defaults: journalDirectIo=false, journalReuseFiles=true; each
//    run warms up until it writes into reused files) and, for comparison,
//    batched rows appending to fresh files and with direct writes. Reports
//    adds/s, MB/s, p50/p99 add latency, allocations per add (global operator
//    new is replaced in this binary), payload copies per add in user space
//    (counted by the journal), and the ratio to the ceiling of the same
//    operation (overwrite for reused files, append for fresh ones).
// 3. `syncs`: journalMaxSyncsInFlight 1 against 2, at 256, 1,024 and 2,048
//    adds in flight, alone and beside a writer of synced 1 MiB chunks (an
//    entry-log flush on the same disk); p999 is printed too.
// Not a test: it asserts nothing.

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "bench/background_writer.h"
#include "bookie/journal/journal.h"
#include "common/alloc/alloc_counter.h"
#include "common/measure.h"

namespace bk::bookie {
namespace {

using measure::Ceiling;
using measure::Clock;
using measure::Regime;
using measure::Seconds;

// The ceiling, or the end of the process with the error: a benchmark has no
// one to return it to.
Ceiling CeilingOrExit(const std::string& dir, size_t group, double seconds,
                      bool direct, bool append) {
  auto c = measure::MeasureCeiling(dir, group, seconds, direct, append);
  if (!c.ok()) {
    std::fprintf(stderr, "journal_bench: ceiling: %s\n",
                 c.status().ToString().c_str());
    std::exit(1);
  }
  return *c;
}

// One add in flight: the callback captures only a pointer to it.
struct Slot {
  struct Producer* producer = nullptr;
  std::shared_ptr<const std::string> payload;  // reused across adds
  Clock::time_point start;
};

struct Producer {
  absl::Mutex mu;
  int free_slots ABSL_GUARDED_BY(mu) = 0;
  std::vector<Slot*> free_list ABSL_GUARDED_BY(mu);
  std::vector<uint32_t> latency_us;  // written by the completion thread only
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> failed{0};
};

struct RunResult {
  double adds_per_s = 0, mb_per_s = 0, p50_us = 0, p99_us = 0, p999_us = 0;
  double allocs_per_add = 0, large_allocs_per_add = 0;
  double cpu_us_per_add = 0;  // this process's user + system CPU
  // Payload bytes the journal copied in user space over payload bytes it
  // wrote while measured (JournalStats, counted where the copy happens).
  double copies_per_add = 0;
  JournalStats stats;
  // Files the journal made while measured: created (appending) or reused
  // (overwriting); and whether it was in a reused file from the start.
  uint64_t created_while_measured = 0, reused_while_measured = 0;
  uint64_t warm_reused = 0;
  bool Overwriting() const {
    return warm_reused > 0 && created_while_measured == 0;
  }
};

// User + system CPU of this process so far (getrusage), in seconds.
double ProcessCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// `batch` 1: one Journal::Add per add. `batch` > 1: AddBatch of that many,
// as the bookie's add stream journals a received batch.
// `background_mb_per_s` > 0: a thread beside the journal writes 1 MiB
// chunks through the page cache into a file of its own in `dir`'s parent,
// each synced, at that rate (what a bookie's entry-log flush does to the
// disk its journal shares).
RunResult RunJournal(const std::string& dir, size_t entry_bytes, int producers,
                     int window, double seconds, int batch, bool direct,
                     bool reuse, bool remove_from_page_cache = true,
                     int syncs_in_flight = 1, int background_mb_per_s = 0) {
  Env* env = Env::Default();
  env->RemoveDirRecursive(dir).IgnoreError();
  bench::BackgroundWriter background(dir + ".background", background_mb_per_s);
  JournalOptions o;
  o.dirs = {dir};
  o.max_file_size_bytes = uint64_t{256} << 20;
  o.max_backups = 1;
  o.direct_io = direct;
  o.reuse_files = reuse;
  o.remove_from_page_cache = remove_from_page_cache;
  o.max_syncs_in_flight = syncs_in_flight;
  Journal journal(env, o);
  if (!journal.Replay([](const JournalRecordView&) { return absl::OkStatus(); })
           .ok() ||
      !journal.Start().ok()) {
    std::fprintf(stderr, "journal start failed\n");
    std::exit(1);
  }
  std::vector<std::unique_ptr<Producer>> ps;
  std::vector<std::unique_ptr<Slot>> slots;
  for (int p = 0; p < producers; ++p) {
    ps.push_back(std::make_unique<Producer>());
    ps.back()->latency_us.reserve(2'000'000);
    absl::MutexLock l(&ps.back()->mu);
    for (int w = 0; w < window; ++w) {
      slots.push_back(std::make_unique<Slot>());
      slots.back()->producer = ps.back().get();
      slots.back()->payload =
          std::make_shared<const std::string>(entry_bytes, 'p');
      ps.back()->free_list.push_back(slots.back().get());
    }
    ps.back()->free_slots = window;
  }
  std::atomic<bool> stop{false};
  std::atomic<bool> measuring{false};
  const uint64_t allocs0 = alloc::Allocations(),
                 large0 = alloc::LargeAllocations();
  // Outlives the journal's Stop (callbacks may run until then).
  auto on_done = [&measuring](Slot* slot, absl::Status st) {
    Producer* owner = slot->producer;
    if (st.ok()) {
      if (measuring.load(std::memory_order_relaxed)) {
        owner->latency_us.push_back(static_cast<uint32_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() -
                                                                  slot->start)
                .count()));
      }
      owner->completed.fetch_add(1, std::memory_order_relaxed);
    } else {
      owner->failed.fetch_add(1, std::memory_order_relaxed);
    }
    absl::MutexLock l(&owner->mu);
    owner->free_list.push_back(slot);
    ++owner->free_slots;
  };
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      Producer* pr = ps[p].get();
      int64_t entry = 0;
      std::vector<Slot*> taken;
      std::vector<JournalRecord> records;
      while (batch > 1 && !stop.load(std::memory_order_relaxed)) {
        {
          absl::MutexLock l(&pr->mu);
          auto has = [pr, batch]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pr->mu) {
            return pr->free_slots >= batch;
          };
          if (!pr->mu.AwaitWithTimeout(absl::Condition(&has),
                                       absl::Milliseconds(50)))
            continue;
          taken.assign(pr->free_list.end() - batch, pr->free_list.end());
          pr->free_list.resize(pr->free_list.size() - batch);
          pr->free_slots -= batch;
        }
        const auto now = Clock::now();
        records.clear();
        for (Slot* slot : taken) {
          slot->start = now;
          JournalRecord r;
          r.ledger_id = static_cast<uint64_t>(p);
          r.entry_id = entry++;
          r.payload = JournalPayload::Of(slot->payload);
          r.done = [slot, &on_done](absl::Status st) { on_done(slot, st); };
          records.push_back(std::move(r));
        }
        absl::Status s = journal.AddBatch(&records);
        if (!s.ok()) {
          std::fprintf(stderr, "add failed: %s\n", s.ToString().c_str());
          std::exit(1);
        }
      }
      while (batch <= 1 && !stop.load(std::memory_order_relaxed)) {
        Slot* slot;
        {
          absl::MutexLock l(&pr->mu);
          auto has = [pr]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pr->mu) {
            return pr->free_slots > 0;
          };
          if (!pr->mu.AwaitWithTimeout(absl::Condition(&has),
                                       absl::Milliseconds(50)))
            continue;
          slot = pr->free_list.back();
          pr->free_list.pop_back();
          --pr->free_slots;
        }
        slot->start = Clock::now();
        absl::Status s = journal.Add(
            journal_format::RecordType::kEntry, static_cast<uint64_t>(p),
            entry++, JournalPayload::Of(slot->payload),
            [slot, &on_done](absl::Status st) { on_done(slot, st); });
        if (!s.ok()) {
          std::fprintf(stderr, "add failed: %s\n", s.ToString().c_str());
          std::exit(1);
        }
      }
    });
  }
  // Warm-up: vectors reach their steady capacity and, with reuse, the
  // journal has retired files and writes into reused ones, as a bookie
  // does after its first few files (bounded: 20 s). Checkpoints as the
  // storage would make them.
  const auto warm_start = Clock::now();
  while (Seconds(Clock::now() - warm_start) < 20) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    journal.Checkpoint(journal.CurrentMark()).IgnoreError();
    if (Seconds(Clock::now() - warm_start) >= 0.5 &&
        (!reuse || journal.Stats().files_reused >= 2)) {
      break;
    }
  }
  const JournalStats warm = journal.Stats();
  auto count = [&] {
    uint64_t n = 0;
    for (auto& p : ps) n += p->completed.load();
    return n;
  };
  const uint64_t a0 = alloc::Allocations(), l0 = alloc::LargeAllocations();
  (void)allocs0;
  (void)large0;
  const uint64_t c0 = count();
  const JournalStats m0 = journal.Stats();
  const double cpu0 = ProcessCpuSeconds();
  measuring = true;
  const auto start = Clock::now();
  while (Seconds(Clock::now() - start) < seconds) {
    // A checkpoint every 50 ms, as the storage makes one after each
    // write-cache flush: with the default 64 MiB cache, one per 32 MiB of
    // adds, every 10-30 ms at these rates.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    journal.Checkpoint(journal.CurrentMark()).IgnoreError();
  }
  measuring = false;
  const double cpu1 = ProcessCpuSeconds();
  const double el = Seconds(Clock::now() - start);
  const uint64_t c1 = count();
  const JournalStats m1 = journal.Stats();
  const uint64_t a1 = alloc::Allocations(), l1 = alloc::LargeAllocations();
  stop = true;
  for (auto& t : threads) t.join();
  journal.Stop();
  RunResult r;
  r.stats = journal.Stats();
  r.created_while_measured = r.stats.files_created - warm.files_created;
  r.reused_while_measured = r.stats.files_reused - warm.files_reused;
  r.warm_reused = warm.files_reused;
  const uint64_t adds = c1 - c0;
  r.adds_per_s = adds / el;
  r.mb_per_s = adds * static_cast<double>(entry_bytes) / el / 1e6;
  r.allocs_per_add = adds ? static_cast<double>(a1 - a0) / adds : 0;
  r.cpu_us_per_add = adds ? (cpu1 - cpu0) * 1e6 / adds : 0;
  r.large_allocs_per_add = adds ? static_cast<double>(l1 - l0) / adds : 0;
  const uint64_t payload = m1.payload_bytes - m0.payload_bytes;
  r.copies_per_add = payload ? static_cast<double>(m1.payload_bytes_copied -
                                                   m0.payload_bytes_copied) /
                                   static_cast<double>(payload)
                             : 0;
  std::vector<uint32_t> lat;
  for (auto& p : ps)
    lat.insert(lat.end(), p->latency_us.begin(), p->latency_us.end());
  std::sort(lat.begin(), lat.end());
  if (!lat.empty()) {
    r.p50_us = lat[lat.size() / 2];
    r.p99_us = lat[lat.size() * 99 / 100];
    r.p999_us = lat[lat.size() * 999 / 1000];
  }
  env->RemoveDirRecursive(dir).IgnoreError();
  return r;
}

}  // namespace
}  // namespace bk::bookie

int main(int argc, char** argv) {
  using namespace bk::bookie;
  // As the bookie daemon does (bookie/daemon/bookie_main.cc): no lock-graph
  // bookkeeping on every Mutex operation.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const std::string dir = argc > 1 ? argv[1] : "/var/tmp/bk_journal_bench";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  const size_t group = 512 * 1024;
  // Adds in flight: 2,048 (a fifth of one bookie thread's
  // maxPendingAddRequestsPerThread), enough to keep four groups of
  // journalBufferedWritesThreshold at 1 KiB in the pipeline; one row per
  // entry size at 1,024, where at 1 KiB only two groups fit and the
  // journal waits for the previous group's adds to come back.
  const int producers = 16, window = 128;
  // The add stream's batching, from as many threads as a gRPC server on
  // this machine's cores would run.
  const int batch = 64, batch_producers = 4;
  if (!bk::Env::Default()->CreateDirRecursive(dir).ok()) return 1;

  // [append][direct]: the journal's own pattern (append) and the device's
  // best case (overwrite), through the page cache and with O_DIRECT.
  struct Ceilings {
    Ceiling c[2][2];
    double Best(bool append) const {
      return std::max(c[append][0].mb_per_s, c[append][1].mb_per_s);
    }
  };
  auto measure = [&dir](double secs) {  // `group` is a constant
    Ceilings r;
    for (int append = 0; append < 2; ++append) {
      for (int direct = 0; direct < 2; ++direct) {
        r.c[append][direct] =
            CeilingOrExit(dir, group, secs, direct != 0, append != 0);
      }
    }
    return r;
  };
  auto print_ceiling = [](const char* when, const Ceilings& c) {
    std::printf(
        "ceiling %s: pwrite+fdatasync of 512 KiB groups, MB/s: appending to "
        "a fresh file as the journal does %.0f (page cache) / %.0f "
        "(O_DIRECT); overwriting written blocks %.0f / %.0f; 4 KiB fdatasync "
        "median %.2f ms: %s regime\n",
        when, c.c[1][0].mb_per_s, c.c[1][1].mb_per_s, c.c[0][0].mb_per_s,
        c.c[0][1].mb_per_s, c.c[0][0].small_sync_ms,
        Regime(c.c[0][0].small_sync_ms));
  };
  const auto before = measure(1.5);
  std::printf(
      "dir %s; single adds: %d producers; batches: %d producers in AddBatch "
      "calls of %d (as the bookie's add stream); flight = adds in flight; "
      "%.1f s per run after a warm-up\n",
      dir.c_str(), producers, batch_producers, batch, seconds);
  print_ceiling("before", before);
  struct Row {
    size_t bytes;
    int batch;
    bool direct;
    bool reuse;
    int in_flight;
    bool remove;  // journalRemoveFromPageCache
    int syncs;    // journalMaxSyncsInFlight
    int background_mb_per_s;
    RunResult r;
  };
  std::vector<Row> rows;
  // argv[3] "batch" runs only the batched rows with the defaults (for
  // profiling).
  const bool only_batched = argc > 3 && std::string(argv[3]) == "batch";
  // argv[3] "pagecache": the batched rows at 1 KiB and 16 KiB, in fresh and
  // in reused files, each with journalRemoveFromPageCache off then on.
  const bool page_cache = argc > 3 && std::string(argv[3]) == "pagecache";
  // argv[3] "syncs": the batched rows at 1 KiB, 1 and 2 syncs in flight
  // alternating, alone on the disk and beside a writer of 1 MiB synced
  // chunks at argv[4] MB/s (default 150, as three bookies' entry-log
  // flushes at half of this machine's end-to-end peak), at three loads.
  const bool syncs_mode = argc > 3 && std::string(argv[3]) == "syncs";
  const int background = argc > 4 ? std::atoi(argv[4]) : 150;
  auto run = [&](size_t bytes, int b, bool direct, bool reuse, int in_flight,
                 bool remove = true, int syncs = 1, int bg = 0) {
    const int ps = b == 1 ? producers : batch_producers;
    rows.push_back({bytes, b, direct, reuse, in_flight, remove, syncs, bg,
                    RunJournal(dir + "/journal", bytes, ps, in_flight / ps,
                               seconds, b, direct, reuse, remove, syncs, bg)});
  };
  const int in_flight = producers * window;
  if (syncs_mode) {
    for (int bg : {0, background}) {
      for (int flight : {256, 1024, 2048}) {
        for (int syncs : {1, 2}) {
          run(1024, batch, false, true, flight, true, syncs, bg);
        }
      }
    }
  }
  if (page_cache) {
    for (size_t bytes : {size_t{1024}, size_t{16 * 1024}}) {
      for (bool reuse : {false, true}) {
        run(bytes, batch, false, reuse, in_flight, false);
        run(bytes, batch, false, reuse, in_flight, true);
      }
    }
  }
  // The defaults first (page cache, reused files), then each of the two
  // choices flipped: fresh files (journalReuseFiles=false, appending) and
  // direct writes (journalDirectIo=true).
  for (size_t bytes : {size_t{1024}, size_t{16 * 1024}}) {
    if (page_cache || syncs_mode) break;
    if (!only_batched) run(bytes, 1, false, true, in_flight);
    run(bytes, batch, false, true, in_flight / 2);
    run(bytes, batch, false, true, in_flight);
    if (!only_batched) {
      run(bytes, batch, false, false, in_flight);
      run(bytes, batch, true, true, in_flight);
    }
  }
  const auto after = measure(1.5);
  print_ceiling("after ", after);
  // Each row is compared with the same operation: pwrite+fdatasync of the
  // same group size, appending (a journal in fresh files) or overwriting
  // (in reused files), the better of page cache and O_DIRECT, mean of
  // before and after.
  const double append = (before.Best(true) + after.Best(true)) / 2;
  const double overwrite = (before.Best(false) + after.Best(false)) / 2;
  std::printf(
      "\n%-7s %5s %6s %-6s %-7s %-4s %5s %5s %10s %8s %8s %8s %8s %8s %10s "
      "%10s %6s %9s %8s %6s %7s %9s\n",
      "entry", "batch", "flight", "write", "files", "drop", "syncs", "bg",
      "adds/s", "MB/s", "p50 us", "p99 us", "p999 us", "cpu us", "allocs/add",
      ">=1KiB/add", "copies", "avg group", "padding", "vs same", "append",
      "overwrite");
  for (const Row& row : rows) {
    const JournalStats& s = row.r.stats;
    const double avg_group =
        s.groups_written
            ? static_cast<double>(s.bytes_written) / s.groups_written / 1024
            : 0;
    const double padding =
        s.bytes_written
            ? 100.0 * static_cast<double>(s.padding_bytes) / s.bytes_written
            : 0;
    // A run that created a file while measured appended for a while: it is
    // held to the overwrite ceiling all the same (the stricter one) when it
    // also reused.
    const bool overwriting = row.r.Overwriting();
    const char* files = !row.reuse                        ? "fresh"
                        : overwriting                     ? "reused"
                        : row.r.reused_while_measured > 0 ? "mixed"
                                                          : "fresh";
    const double same =
        row.reuse && (overwriting || row.r.reused_while_measured > 0)
            ? overwrite
            : append;
    std::printf(
        "%-7s %5d %6d %-6s %-7s %-4s %5d %5d %10.0f %8.1f %8.0f %8.0f %8.0f "
        "%8.2f %10.3f %10.3f %6.2f %6.0fKiB %7.2f%% %6.0f%% %6.0f%% %8.0f%%\n",
        row.bytes == 1024 ? "1 KiB" : "16 KiB", row.batch, row.in_flight,
        row.direct ? "direct" : "cache", files, row.remove ? "yes" : "no",
        row.syncs, row.background_mb_per_s, row.r.adds_per_s, row.r.mb_per_s,
        row.r.p50_us, row.r.p99_us, row.r.p999_us, row.r.cpu_us_per_add,
        row.r.allocs_per_add, row.r.large_allocs_per_add, row.r.copies_per_add,
        avg_group, padding, 100 * row.r.mb_per_s / same,
        100 * row.r.mb_per_s / append, 100 * row.r.mb_per_s / overwrite);
  }
  std::printf(
      "\n(vs same = MB/s against the ceiling of the operation the row did: "
      "overwriting written blocks for rows in reused files "
      "(journalReuseFiles, the default; files reused or mixed) %.0f MB/s, "
      "appending for rows in fresh files %.0f MB/s; each the higher of page "
      "cache and O_DIRECT, mean of before/after. copies = payload copies "
      "per add in user space, counted by the journal (payload bytes it "
      "copied over payload bytes it wrote): a direct group is copied once "
      "into one aligned buffer, in place of the kernel's copy into the page "
      "cache; a page-cache group is written by writev from the callers' "
      "buffers. "
      "padding = padding records / record bytes. drop = "
      "journalRemoveFromPageCache. syncs = journalMaxSyncsInFlight. bg = "
      "MB/s of 1 MiB synced chunks written beside the journal on the same "
      "disk. cpu us = this process's user + system "
      "CPU per add while measured.)\n",
      overwrite, append);
  return 0;
}
