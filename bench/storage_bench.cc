// storage_bench: throughput of the ledger storage (not a test).
//
// Measures, for 1 KiB and 16 KiB entries: the add + flush path (entries/s,
// MB/s), allocations per add, read throughput cold (entry logs evicted from
// the page cache, read-ahead on) and warm (read cache), and RSS against the
// configured cache sizes. Prints the machine's ceiling beside it: raw
// sequential pwrite + fdatasync in groups the size of a write-cache half on
// the same directory, and the single-sync latency before and after the run
// (this VM's fsync has two regimes).
//
// Usage: storage_bench [dir] [MiB per entry size]   (default /tmp, 256)

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "bookie/storage/ledger_storage.h"
#include "proto/entry_format.h"

namespace {

std::atomic<uint64_t> g_allocs{0};

}  // namespace

void* operator new(size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

using bk::Env;
using bk::bookie::EntryBuffer;
using bk::bookie::LedgerStorage;
using bk::bookie::LedgerStorageOptions;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

long RssKiB() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::atol(line + 6);
  }
  std::fclose(f);
  return kib;
}

// Median latency of a 4 KiB write + fdatasync, in ms.
double SyncLatencyMs(const std::string& dir) {
  const std::string path = dir + "/sync_probe";
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  std::vector<char> buf(4096, 'x');
  std::vector<double> ms;
  for (int i = 0; i < 50; ++i) {
    auto t0 = Clock::now();
    if (::write(fd, buf.data(), buf.size()) < 0 || ::fdatasync(fd) != 0) {
      std::perror("sync probe");
    }
    ms.push_back(Seconds(t0, Clock::now()) * 1e3);
  }
  ::close(fd);
  ::unlink(path.c_str());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Raw sequential write in 1 MiB pwrites with an fdatasync every `group`
// bytes: MB/s.
double RawCeilingMBs(const std::string& dir, uint64_t total, uint64_t group) {
  const std::string path = dir + "/raw_ceiling";
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  std::vector<char> buf(1 << 20, 'r');
  auto t0 = Clock::now();
  uint64_t since_sync = 0;
  for (uint64_t off = 0; off < total; off += buf.size()) {
    if (::pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(off)) < 0) {
      std::perror("pwrite");
    }
    since_sync += buf.size();
    if (since_sync >= group) {
      ::fdatasync(fd);
      since_sync = 0;
    }
  }
  ::fdatasync(fd);
  const double s = Seconds(t0, Clock::now());
  ::close(fd);
  ::unlink(path.c_str());
  return total / 1e6 / s;
}

void EvictPageCache(const std::string& dir) {
  auto children = Env::Default()->GetChildren(dir);
  if (!children.ok()) return;
  for (const auto& c : *children) {
    if (!absl::EndsWith(c, ".log")) continue;
    int fd = ::open((dir + "/" + c).c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

void RunSize(const std::string& root, size_t payload, uint64_t total_bytes) {
  const std::string dir = root + "/bk_storage_bench_" + std::to_string(payload);
  Env::Default()->RemoveDirRecursive(dir).IgnoreError();
  LedgerStorageOptions o;
  o.ledger_dirs = {dir};
  o.write_cache_bytes = 64ull << 20;
  o.read_cache_bytes = 64ull << 20;
  o.flush_interval = absl::Seconds(1);
  o.gc_wait_time = absl::ZeroDuration();
  const uint64_t n = total_bytes / payload;
  constexpr int kLedgers = 8;

  // The receive path: packaged entries, made before the clock starts.
  std::vector<EntryBuffer> entries;
  entries.reserve(n);
  std::string body(payload, 'p');
  for (uint64_t i = 0; i < n; ++i) {
    bk::entry::EntryHeader h{i % kLedgers, static_cast<int64_t>(i / kLedgers),
                             -1, 0};
    entries.push_back(bk::bookie::MakeEntryBuffer(
        bk::entry::Package(h, body, bk::entry::DigestType::kCrc32c)));
  }
  const long rss_before = RssKiB();
  auto storage = LedgerStorage::Open(Env::Default(), o);
  if (!storage.ok()) {
    std::printf("open failed: %s\n", storage.status().ToString().c_str());
    return;
  }
  LedgerStorage& s = **storage;
  const uint64_t allocs0 = g_allocs.load();
  auto t0 = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    absl::Status st = s.AddEntry(i % kLedgers, i / kLedgers, entries[i]);
    if (!st.ok()) {
      std::printf("add failed: %s\n", st.ToString().c_str());
      return;
    }
  }
  const uint64_t add_allocs = g_allocs.load() - allocs0;
  auto t_added = Clock::now();
  if (absl::Status st = s.Flush(); !st.ok()) {
    std::printf("flush failed: %s\n", st.ToString().c_str());
  }
  auto t1 = Clock::now();
  const long rss_after = RssKiB();
  const double secs = Seconds(t0, t1);
  const uint64_t bytes = n * entries[0]->size();
  bk::bookie::StorageStats st = s.GetStats();
  std::printf(
      "%6zu B entries: add+flush %8.0f entries/s %7.1f MB/s (adds alone "
      "%.2f s, %" PRIu64 " flushes, %" PRIu64 " throttled adds)\n",
      payload, n / secs, bytes / 1e6 / secs, Seconds(t0, t_added), st.flushes,
      st.throttled_adds);
  std::printf(
      "               allocations per add %.3f (all causes, incl. "
      "cache maps and flush scratch)\n",
      static_cast<double>(add_allocs) / n);
  std::printf(
      "               RSS growth %.1f MiB (entries themselves %.1f "
      "MiB held by the bench) vs write cache %" PRIu64
      " MiB + read cache %" PRIu64 " MiB\n",
      (rss_after - rss_before) / 1024.0, bytes / 1048576.0,
      o.write_cache_bytes >> 20, o.read_cache_bytes >> 20);
  entries.clear();
  entries.shrink_to_fit();

  // Cold read: page cache evicted, a catch-up reader per ledger.
  storage->reset();
  auto reopened = LedgerStorage::Open(Env::Default(), o);
  LedgerStorage& r = **reopened;
  EvictPageCache(dir);
  const uint64_t per_ledger = n / kLedgers;
  for (int pass = 0; pass < 2; ++pass) {
    auto r0 = Clock::now();
    uint64_t read_bytes = 0;
    for (uint64_t i = 0; i < kLedgers; ++i) {
      const uint64_t l = pass == 0 ? i : kLedgers - 1;
      for (uint64_t e = 0; e < per_ledger; ++e) {
        auto got = r.GetEntry(l, static_cast<int64_t>(e));
        if (!got.ok()) {
          std::printf("read failed: %s\n", got.status().ToString().c_str());
          return;
        }
        read_bytes += (*got)->size();
      }
      // Warm: a follower re-reads the last ledger, which the catch-up
      // reader just left in the read cache.
      if (pass == 1) break;
    }
    const double rs = Seconds(r0, Clock::now());
    const uint64_t count = pass == 0 ? per_ledger * kLedgers : per_ledger;
    std::printf("               read %s %8.0f entries/s %7.1f MB/s\n",
                pass == 0 ? "cold (entry log, read-ahead)" : "warm (follower)",
                count / rs, read_bytes / 1e6 / rs);
  }
  bk::bookie::StorageStats rst = r.GetStats();
  std::printf("               read cache hit ratio %.3f (%" PRIu64
              " misses, %" PRIu64 " read ahead)\n",
              rst.read_cache_hit_ratio(), rst.read_cache_misses,
              rst.read_ahead_entries);
  reopened->reset();
  Env::Default()->RemoveDirRecursive(dir).IgnoreError();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/tmp";
  const uint64_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256;
  std::printf("storage_bench dir=%s %" PRIu64 " MiB per entry size\n",
              root.c_str(), mib);
  std::printf(
      "ceiling: fdatasync 4 KiB median %.3f ms; raw pwrite+fdatasync "
      "per 32 MiB %.0f MB/s\n",
      SyncLatencyMs(root), RawCeilingMBs(root, mib << 20, 32 << 20));
  RunSize(root, 1024, mib << 20);
  RunSize(root, 16384, mib << 20);
  std::printf(
      "ceiling after: fdatasync 4 KiB median %.3f ms; raw "
      "pwrite+fdatasync per 32 MiB %.0f MB/s\n",
      SyncLatencyMs(root), RawCeilingMBs(root, mib << 20, 32 << 20));
  return 0;
}
