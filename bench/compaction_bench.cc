// compaction_bench: how fast GC compaction moves the live entries out of
// partly dead entry logs, against this disk's copy ceiling (not a test).
//
//   compaction_bench [--dir=/var/tmp] [--mib=512] [--size=1024]
//                    [--live=0.5] [--ledgers=32] [--log_mib=64]
//                    [--cold=true]
//
// Writes --mib of --size B entries round-robin over --ledgers ledgers,
// flushes, deletes (1 - --live) of the ledgers spread evenly over their ids
// (a flush writes ledgers in id order, so every log loses about that
// share), then runs one GC pass with the compaction
// threshold at 1 (every log with a dead byte is compacted) and no rate
// limit. With --cold the logs leave the page cache first, as after a day
// on a busy bookie. Then every entry of every live ledger is read back and
// checked; a missing or different entry is an error (exit 1).
//
// The ceiling, printed beside: the same work as bare file I/O on the same
// directory, a file the size of the compacted logs read sequentially
// (cold as the logs were) while every --live part of it is written to a
// new file, synced at the end. Compaction's moved MB/s over the ceiling's
// is the ratio to read. The daemon's default compactionRateByBytes (1 MB/s)
// is what a bookie allows itself by default; this measures the code
// without it.

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "bookie/storage/ledger_storage.h"
#include "common/env.h"
#include "proto/entry_format.h"

namespace {

using bk::Env;
using bk::bookie::LedgerStorage;
using bk::bookie::LedgerStorageOptions;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::string dir = "/var/tmp";
  uint64_t mib = 512;
  size_t size = 1024;
  double live = 0.5;
  int ledgers = 32;
  uint64_t log_mib = 64;
  bool cold = true;
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "compaction_bench: %s\nflags (each --name=value): dir, mib, "
               "size, live (0..1, exclusive), ledgers, log_mib, cold "
               "(true|false)\n",
               why.c_str());
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos) {
      Usage("unexpected argument '" + a + "'");
    }
    const std::string k = a.substr(2, eq - 2), v = a.substr(eq + 1);
    bool ok = true;
    if (k == "dir") {
      f.dir = v;
    } else if (k == "mib") {
      ok = absl::SimpleAtoi(v, &f.mib) && f.mib >= 1;
    } else if (k == "size") {
      ok = absl::SimpleAtoi(v, &f.size) && f.size >= 1 &&
           f.size <= bk::entry::kMaxPayloadSize;
    } else if (k == "live") {
      ok = absl::SimpleAtod(v, &f.live) && f.live > 0 && f.live < 1;
    } else if (k == "ledgers") {
      ok = absl::SimpleAtoi(v, &f.ledgers) && f.ledgers >= 2;
    } else if (k == "log_mib") {
      ok = absl::SimpleAtoi(v, &f.log_mib) && f.log_mib >= 1;
    } else if (k == "cold") {
      ok = v == "true" || v == "false";
      f.cold = v == "true";
    } else {
      Usage("unknown flag --" + k);
    }
    if (!ok) Usage("bad value for --" + k + ": '" + v + "'");
  }
  return f;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void Evict(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void EvictLogs(const std::string& dir) {
  auto children = Env::Default()->GetChildren(dir);
  if (!children.ok()) return;
  for (const auto& c : *children) {
    if (absl::EndsWith(c, ".log")) Evict(dir + "/" + c);
  }
}

[[noreturn]] void Die(const char* what, const absl::Status& s) {
  std::fprintf(stderr, "compaction_bench: %s: %s\n", what,
               s.ToString().c_str());
  std::exit(1);
}

// The ceiling: read `read_bytes` of a cold file sequentially in 1 MiB
// pieces, writing `live` of every piece to a second file, synced at the
// end. Returns the MB/s of bytes written (compaction's "moved").
double CopyCeilingMBs(const std::string& dir, uint64_t read_bytes,
                      double live) {
  const std::string src = dir + "/bk_compaction_ceiling.src";
  const std::string dst = dir + "/bk_compaction_ceiling.dst";
  std::vector<char> buf(1 << 20, 'c');
  int fd = ::open(src.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (uint64_t off = 0; off < read_bytes; off += buf.size()) {
    if (::pwrite(fd, buf.data(), buf.size(), off) < 0) std::perror("pwrite");
  }
  ::close(fd);
  Evict(src);
  int in = ::open(src.c_str(), O_RDONLY);
  int out = ::open(dst.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  const size_t keep = static_cast<size_t>(buf.size() * live);
  uint64_t written = 0;
  const auto t0 = Clock::now();
  for (uint64_t off = 0; off < read_bytes; off += buf.size()) {
    if (::pread(in, buf.data(), buf.size(), off) < 0) std::perror("pread");
    if (::pwrite(out, buf.data(), keep, written) < 0) std::perror("pwrite");
    written += keep;
  }
  ::fdatasync(out);
  const double s = Seconds(t0, Clock::now());
  ::close(in);
  ::close(out);
  ::unlink(src.c_str());
  ::unlink(dst.c_str());
  return written / 1e6 / s;
}

int Main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  const std::string dir =
      f.dir + "/bk_compaction_bench." + std::to_string(::getpid());
  Env::Default()->RemoveDirRecursive(dir).IgnoreError();
  LedgerStorageOptions o;
  o.ledger_dirs = {dir};
  o.entry_log_size_limit = f.log_mib << 20;
  o.gc_wait_time = absl::ZeroDuration();   // only the pass below
  o.compaction_rate_bytes_per_second = 0;  // unthrottled
  o.deleted_ledger_retention = absl::ZeroDuration();
  const std::string body(f.size, 'p');
  const uint64_t n = (f.mib << 20) / f.size;
  // Ledger l is deleted when the dead share's running count steps at l.
  const double d = 1 - f.live;
  auto is_dead = [d](uint64_t l) {
    return static_cast<uint64_t>((l + 1) * d) > static_cast<uint64_t>(l * d);
  };
  const int dead = static_cast<int>(f.ledgers * d);
  std::printf("compaction_bench: %" PRIu64
              " entries of %zu B over %d ledgers, "
              "%d deleted (live %.2f), logs of %" PRIu64 " MiB, %s, in %s\n",
              n, f.size, f.ledgers, dead, f.live, f.log_mib,
              f.cold ? "cold" : "page cache kept", dir.c_str());
  auto opened = LedgerStorage::Open(Env::Default(), o);
  if (!opened.ok()) Die("open", opened.status());
  LedgerStorage& s = **opened;
  const auto w0 = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t ledger = i % f.ledgers;
    const int64_t entry = static_cast<int64_t>(i / f.ledgers);
    bk::entry::EntryHeader h{ledger, entry, -1, 0};
    absl::Status st = s.AddEntry(ledger, entry,
                                 bk::bookie::MakeEntryBuffer(bk::entry::Package(
                                     h, body, bk::entry::DigestType::kCrc32c)));
    if (!st.ok()) Die("add", st);
  }
  if (absl::Status st = s.Flush(); !st.ok()) Die("flush", st);
  std::printf("written and flushed in %.1f s\n", Seconds(w0, Clock::now()));
  for (int l = 0; l < f.ledgers; ++l) {
    if (!is_dead(l)) continue;
    if (absl::Status st = s.DeleteLedger(l); !st.ok()) Die("delete", st);
  }
  if (absl::Status st = s.Flush(); !st.ok()) Die("flush", st);
  if (f.cold) EvictLogs(dir);

  const double cpu0 = CpuSeconds();
  const auto t0 = Clock::now();
  auto gc = s.RunGc([](uint64_t) { return false; }, 1.0);
  const double secs = Seconds(t0, Clock::now());
  const double cpu = CpuSeconds() - cpu0;
  if (!gc.ok()) Die("gc", gc.status());
  const double moved_mbs = gc->moved_bytes / 1e6 / secs;
  std::printf("compaction: %" PRIu64 " logs compacted, %" PRIu64
              " removed, %" PRIu64
              " entries (%.1f MB) moved, %.1f MB reclaimed "
              "in %.2f s: %.1f MB/s moved, %.2f us CPU per moved entry\n",
              gc->compacted_logs, gc->removed_logs, gc->moved_entries,
              gc->moved_bytes / 1e6, gc->reclaimed_bytes / 1e6, secs, moved_mbs,
              gc->moved_entries > 0 ? cpu / gc->moved_entries * 1e6 : 0.0);

  // Every live entry is still there, byte for byte.
  uint64_t checked = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t ledger = i % f.ledgers;
    if (is_dead(ledger)) continue;
    const int64_t entry = static_cast<int64_t>(i / f.ledgers);
    auto got = s.GetEntry(ledger, entry);
    if (!got.ok()) Die("read back", got.status());
    auto decoded =
        bk::entry::Decode(**got, bk::entry::DigestType::kCrc32c, ledger, entry);
    if (!decoded.ok() || decoded->payload != body) {
      Die("read back", absl::DataLossError("entry " + std::to_string(ledger) +
                                           ":" + std::to_string(entry) +
                                           " differs after compaction"));
    }
    ++checked;
  }
  std::printf("read back: %" PRIu64 " live entries, all intact\n", checked);
  opened->reset();
  Env::Default()->RemoveDirRecursive(dir).IgnoreError();

  const uint64_t compacted_bytes = gc->compacted_logs * (f.log_mib << 20);
  if (compacted_bytes > 0 && moved_mbs > 0) {
    const double ceiling = CopyCeilingMBs(f.dir, compacted_bytes, f.live);
    std::printf(
        "ceiling: read %.0f MB %s, write %.0f %% of it, one sync: %.1f MB/s "
        "written; compaction = %.0f %% of it\n",
        compacted_bytes / 1e6, f.cold ? "cold" : "cold (the ceiling's is)",
        f.live * 100, ceiling, 100 * moved_mbs / ceiling);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
