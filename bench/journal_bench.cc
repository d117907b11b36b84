// journal_bench: the journal's add path against this machine's ceiling.
//
//   journal_bench [dir=/var/tmp/bk_journal_bench] [seconds_per_run=3] [batch]
//
// 1. Ceiling: pwrite + fdatasync of 512 KiB groups (journalBufferedWrites-
//    Threshold) in `dir`, before and after the journal runs, through the
//    page cache and with O_DIRECT; the higher of the two is the ceiling.
//    Plus the latency of a small fdatasync, which tells this VM's fsync
//    regime.
// 2. Journal: many producer threads, each with a window of adds in flight
//    (like pipelined gRPC streams), 1 KiB and 16 KiB entries, default
//    group-commit options, direct writes (journalDirectIo, the default) and,
//    for comparison, the batched rows through the page cache. Reports
//    adds/s, MB/s, p50/p99 add latency, allocations per add (global operator
//    new is replaced in this binary), payload copies per add in user space,
//    and the ratio to the ceiling.
// Not a test: it asserts nothing.

#include <fcntl.h>
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
#include "bench/bench_common.h"
#include "bookie/journal/journal.h"

namespace bk::bookie {
namespace {

using bench::Ceiling;
using bench::Clock;
using bench::MeasureCeiling;
using bench::Regime;
using bench::Seconds;

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
  double adds_per_s = 0, mb_per_s = 0, p50_us = 0, p99_us = 0;
  double allocs_per_add = 0, large_allocs_per_add = 0;
  JournalStats stats;
};

// `batch` 1: one Journal::Add per add. `batch` > 1: AddBatch of that many,
// as the bookie's add stream journals a received batch.
RunResult RunJournal(const std::string& dir, size_t entry_bytes, int producers,
                     int window, double seconds, int batch, bool direct) {
  Env* env = Env::Default();
  env->RemoveDirRecursive(dir).IgnoreError();
  JournalOptions o;
  o.dirs = {dir};
  o.max_file_size_bytes = uint64_t{256} << 20;
  o.max_backups = 1;
  o.direct_io = direct;
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
  const uint64_t allocs0 = bench::Allocations(),
                 large0 = bench::LargeAllocations();
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
  // Warm-up (vectors reach their steady capacity), then measure.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto count = [&] {
    uint64_t n = 0;
    for (auto& p : ps) n += p->completed.load();
    return n;
  };
  const uint64_t a0 = bench::Allocations(), l0 = bench::LargeAllocations();
  (void)allocs0;
  (void)large0;
  const uint64_t c0 = count();
  measuring = true;
  const auto start = Clock::now();
  auto next_checkpoint = start;
  while (Seconds(Clock::now() - start) < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (Clock::now() >= next_checkpoint) {  // as the storage would
      journal.Checkpoint(journal.CurrentMark()).IgnoreError();
      next_checkpoint = Clock::now() + std::chrono::milliseconds(500);
    }
  }
  measuring = false;
  const double el = Seconds(Clock::now() - start);
  const uint64_t c1 = count();
  const uint64_t a1 = bench::Allocations(), l1 = bench::LargeAllocations();
  stop = true;
  for (auto& t : threads) t.join();
  journal.Stop();
  RunResult r;
  r.stats = journal.Stats();
  const uint64_t adds = c1 - c0;
  r.adds_per_s = adds / el;
  r.mb_per_s = adds * static_cast<double>(entry_bytes) / el / 1e6;
  r.allocs_per_add = adds ? static_cast<double>(a1 - a0) / adds : 0;
  r.large_allocs_per_add = adds ? static_cast<double>(l1 - l0) / adds : 0;
  std::vector<uint32_t> lat;
  for (auto& p : ps)
    lat.insert(lat.end(), p->latency_us.begin(), p->latency_us.end());
  std::sort(lat.begin(), lat.end());
  if (!lat.empty()) {
    r.p50_us = lat[lat.size() / 2];
    r.p99_us = lat[lat.size() * 99 / 100];
  }
  env->RemoveDirRecursive(dir).IgnoreError();
  return r;
}

}  // namespace
}  // namespace bk::bookie

int main(int argc, char** argv) {
  using namespace bk::bookie;
  // As the bookie daemon does (bookie/main.cc): no lock-graph bookkeeping
  // on every Mutex operation.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const std::string dir = argc > 1 ? argv[1] : "/var/tmp/bk_journal_bench";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  const size_t group = 512 * 1024;
  const int producers = 16, window = 64;
  // The add stream's batching, from as many threads as a gRPC server on
  // this machine's cores would run (the same 1,024 adds in flight).
  const int batch = 64, batch_window = 256, batch_producers = 4;
  if (!bk::Env::Default()->CreateDirRecursive(dir).ok()) return 1;

  // [append][direct]: the journal's own pattern (append) and the device's
  // best case (overwrite), through the page cache and with O_DIRECT.
  struct Ceilings {
    Ceiling c[2][2];
    double Best(bool append) const {
      return std::max(c[append][0].mb_per_s, c[append][1].mb_per_s);
    }
  };
  auto measure = [&dir, group](double secs) {
    Ceilings r;
    for (int append = 0; append < 2; ++append) {
      for (int direct = 0; direct < 2; ++direct) {
        r.c[append][direct] =
            MeasureCeiling(dir, group, secs, direct != 0, append != 0);
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
      "dir %s; single adds: %d producers x %d in flight; batches: %d "
      "producers x %d in flight in AddBatch calls of %d (as the bookie's "
      "add stream); %.1f s per run\n",
      dir.c_str(), producers, window, batch_producers, batch_window, batch,
      seconds);
  print_ceiling("before", before);
  struct Row {
    size_t bytes;
    int batch;
    bool direct;
    RunResult r;
  };
  std::vector<Row> rows;
  // argv[3] "batch" runs only the batched direct rows (for profiling).
  const bool only_batched = argc > 3 && std::string(argv[3]) == "batch";
  for (size_t bytes : {size_t{1024}, size_t{16 * 1024}}) {
    if (!only_batched) {
      rows.push_back({bytes, 1, true,
                      RunJournal(dir + "/journal", bytes, producers, window,
                                 seconds, 1, true)});
    }
    rows.push_back({bytes, batch, true,
                    RunJournal(dir + "/journal", bytes, batch_producers,
                               batch_window, seconds, batch, true)});
    if (!only_batched) {
      rows.push_back({bytes, batch, false,
                      RunJournal(dir + "/journal", bytes, batch_producers,
                                 batch_window, seconds, batch, false)});
    }
  }
  const auto after = measure(1.5);
  print_ceiling("after ", after);
  // The ratio is to the same operation: appending with fdatasync, the
  // better of page cache and O_DIRECT, mean of before and after.
  const double ceiling = (before.Best(true) + after.Best(true)) / 2;
  const double overwrite = (before.Best(false) + after.Best(false)) / 2;
  std::printf(
      "\n%-7s %5s %-6s %10s %9s %9s %9s %11s %12s %11s %10s %8s %9s %9s\n",
      "entry", "batch", "write", "adds/s", "MB/s", "p50 us", "p99 us",
      "allocs/add", ">=1KiB/add", "copies/add", "avg group", "padding",
      "ceiling", "overwrite");
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
    std::printf(
        "%-7s %5d %-6s %10.0f %9.1f %9.0f %9.0f %11.3f %12.3f %11d "
        "%7.0fKiB %7.2f%% %8.0f%% %8.0f%%\n",
        row.bytes == 1024 ? "1 KiB" : "16 KiB", row.batch,
        row.direct ? "direct" : "cache", row.r.adds_per_s, row.r.mb_per_s,
        row.r.p50_us, row.r.p99_us, row.r.allocs_per_add,
        row.r.large_allocs_per_add, row.direct ? 1 : 0, avg_group, padding,
        100 * row.r.mb_per_s / ceiling, 100 * row.r.mb_per_s / overwrite);
  }
  std::printf(
      "\n(ceiling = appending pwrite+fdatasync as the journal does, the "
      "higher of page cache and O_DIRECT, mean of before/after: %.0f MB/s; "
      "overwrite = the same against overwriting written blocks, which a "
      "journal that never reuses its files cannot do: %.0f MB/s. copies/add "
      "counts copies in user "
      "space: a direct group is copied once into one aligned buffer, in "
      "place of the kernel's copy into the page cache; a page-cache group is "
      "written by writev from the callers' buffers. padding = padding "
      "records / record bytes.)\n",
      ceiling, overwrite);
  return 0;
}
