// Faults of a real bookie process, driven through its real gRPC and HTTP
// ports: a torn or corrupt journal found at start-up (a sample of cut
// offsets; every offset is covered in process by
// torn_journal_store_test.cc), a failing fsync on the journal and on the
// entry log (testingFailSyncNth of bookie_testing, the bookie on a fault
// Env: test/support/bookie_testing.h), and a full disk
// (a size-limited tmpfs mounted under the test's directory).
//
// Every test prints its seed and writes its figures (figures.h).

#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"
#include "test/fault/figures.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

namespace fs = std::filesystem;
using bk::testing::HttpGet;
using RT = bookie::journal_format::RecordType;

uint64_t Seed() {
  const char* env = getenv("BK_FAULT_SEED");
  const uint64_t seed =
      env != nullptr ? std::stoull(env) : std::random_device{}();
  std::printf("seed=%llu (set BK_FAULT_SEED to repeat)\n",
              static_cast<unsigned long long>(seed));
  return seed;
}

// Session timeout short enough that a SIGKILLed bookie's registration goes
// within about 2 s, so the restart does not wait long.
std::map<std::string, std::string> Flags(
    std::map<std::string, std::string> more = {}) {
  std::map<std::string, std::string> f = {
      {"zkTimeout", "2000"},
      {"journalPreAllocSizeMB", "1"},
      {"baseMetricMonitorEnabled", "false"}};
  for (auto& [k, v] : more) f[k] = v;
  return f;
}

struct JRecord {
  RT type;
  int64_t entry_id;
  uint64_t offset, end;
};

std::string JournalFile(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jnl") return e.path().string();
  FAIL("no journal file in " << dir);
  return "";
}

std::vector<JRecord> RecordsOf(const std::string& path) {
  uint64_t id = 0;
  REQUIRE(bookie::journal_format::ParseFileName(
      fs::path(path).filename().string(), &id));
  auto r = bookie::JournalFileReader::Open(Env::Default(), path, id, 0,
                                           bookie::JournalReaderOptions());
  REQUIRE(r.ok());
  std::vector<JRecord> out;
  bookie::JournalRecordView v;
  while (true) {
    auto more = (*r)->Next(&v);
    REQUIRE(more.ok());
    if (!*more) break;
    out.push_back({v.type, v.entry_id, v.offset, v.end_offset});
  }
  return out;
}

void CopyTree(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::copy(from, to, fs::copy_options::recursive);
}

void Overwrite(const std::string& path, uint64_t offset,
               const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

// The value of the bookie_server_status gauge in /metrics is 0.
bool ServerStatusZero(int port) {
  const std::string m = "\n" + HttpGet(port, "/metrics").body;
  const size_t at = m.find("\nbookie_server_status{");
  if (at == std::string::npos) return false;
  const size_t eol = m.find('\n', at + 1);
  return m.substr(at, eol - at).back() == '0';
}

// ---------------------------------------------------------------- item 3

TEST_CASE(
    "a real bookie whose journal tail is cut starts and serves every earlier "
    "entry, and a corrupt middle record refuses start or is skipped, never "
    "served",
    "[fault][journal]") {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto b =
      StartBookie(BookieOptions(dir, "bk-torn", FreshZkUri("torn"), Flags()));
  constexpr uint64_t L = 3;
  constexpr int64_t kEntries = 6;
  {
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries; ++e)
      REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k", 60 + e * 10)) ==
              proto::BK_EOK);
  }
  b->Kill();  // SIGKILL: entries live only in the journal
  const std::string jdir = b->journal_dir(), ldir = b->ledger_dir();
  CopyTree(jdir, dir.Sub("saved-journal"));
  CopyTree(ldir, dir.Sub("saved-ledgers"));
  const std::string jname = fs::path(JournalFile(jdir)).filename().string();
  const auto records = RecordsOf(JournalFile(jdir));
  REQUIRE(records.back().type == RT::kEntry);
  REQUIRE(records.back().entry_id == kEntries - 1);
  const JRecord last = records.back();
  auto restore = [&] {
    CopyTree(dir.Sub("saved-journal"), jdir);
    CopyTree(dir.Sub("saved-ledgers"), ldir);
  };
  auto size_of = [&](int64_t e) { return static_cast<size_t>(60 + e * 10); };

  // A sample of the cut offsets: the record's first byte, inside its
  // header, the header's end, inside the payload, its last byte, random.
  const uint64_t h = bookie::journal_format::kRecordHeaderSize;
  std::vector<uint64_t> cuts = {last.offset,
                                last.offset + 1,
                                last.offset + h - 1,
                                last.offset + h,
                                (last.offset + last.end) / 2,
                                last.end - 1};
  for (int i = 0; i < 2; ++i)
    cuts.push_back(last.offset + rng() % (last.end - last.offset));
  int started = 0, intact = 0, never_served = 0;
  for (size_t i = 0; i < cuts.size(); ++i) {
    const uint64_t cut = cuts[i];
    const bool zero_fill = i % 2 == 1;
    INFO("seed " << seed << " cut at " << cut
                 << (zero_fill ? " (zeroed)" : ""));
    restore();
    if (zero_fill) {
      Overwrite(jdir + "/" + jname, cut, std::string(last.end - cut, '\0'));
    } else {
      fs::resize_file(jdir + "/" + jname, cut);
    }
    BK_REQUIRE_OK(b->Restart());
    ++started;
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries - 1; ++e) {
      REQUIRE(ReadsBackIntact(stub.get(), L, e, size_of(e)));
      ++intact;
    }
    CHECK(Read(stub.get(), L, kEntries - 1).status() == proto::BK_ENOENTRY);
    ++never_served;
    b->Signal(SIGTERM);
    REQUIRE(b->WaitExit(absl::Seconds(20)).ok());
  }

  // A flipped bit in a middle record's payload: start refused, with the
  // file and offset named.
  const JRecord* mid = nullptr;
  for (const auto& r : records)
    if (r.type == RT::kEntry && r.entry_id == 2) mid = &r;
  REQUIRE(mid != nullptr);
  const uint64_t flip_at =
      mid->offset + h + rng() % (mid->end - mid->offset - h);
  const int flip_bit = static_cast<int>(rng() % 8);
  auto damage = [&] {
    restore();
    std::ifstream in(jdir + "/" + jname, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(flip_at));
    char c = 0;
    in.read(&c, 1);
    Overwrite(jdir + "/" + jname, flip_at,
              std::string(1, static_cast<char>(c ^ (1 << flip_bit))));
  };
  damage();
  BK_REQUIRE_OK(b->Restart({}, /*wait=*/false));
  auto exit = b->WaitExit(absl::Seconds(30));
  REQUIRE(exit.ok());
  const std::string refused_log = b->Log();
  INFO(refused_log);
  const bool refused = exit->signal == 0 && exit->exit_code != 0;
  CHECK(refused);
  const bool clear =
      absl::StrContains(refused_log, jname) &&
      absl::StrContains(refused_log, absl::StrCat("offset ", mid->offset)) &&
      absl::StrContains(refused_log, "journalSkipCorruptRecords");
  CHECK(clear);

  // The same damage with journalSkipCorruptRecords=true: starts, reports,
  // does not serve the damaged entry, serves the rest.
  BK_REQUIRE_OK(b->Restart({{"journalSkipCorruptRecords", "true"}}));
  const bool reported = absl::StrContains(b->Log(), "1 corrupt ranges skipped");
  CHECK(reported);
  bool damaged_not_served, rest_intact = true;
  {
    auto stub = Connect(b->grpc_target());
    damaged_not_served = Read(stub.get(), L, 2).status() == proto::BK_ENOENTRY;
    for (int64_t e = 0; e < kEntries; ++e)
      if (e != 2) rest_intact &= ReadsBackIntact(stub.get(), L, e, size_of(e));
  }
  CHECK(damaged_not_served);
  CHECK(rest_intact);

  // The same damage, started once with the override the refusal printed
  // (for a power loss: this file is the newest): the file is cut at the
  // damaged record; the entries before it are served, it and the ones after
  // are gone (acknowledged here, as this is damage: the refusal says so).
  const std::string kFlag = "--journalCutNewestTailAt=";
  const size_t flag_at = refused_log.find(kFlag);
  REQUIRE(flag_at != std::string::npos);
  const size_t value_at = flag_at + kFlag.size();
  const std::string cut_value =
      refused_log.substr(value_at, refused_log.find(' ', value_at) - value_at);
  CHECK(cut_value == absl::StrCat(jdir, "/", jname, ":", mid->offset));
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(20)).ok());
  damage();
  BK_REQUIRE_OK(b->Restart({{"journalSkipCorruptRecords", "false"},
                            {"journalCutNewestTailAt", cut_value}}));
  bool before_intact = true, from_cut_gone = true;
  {
    auto stub = Connect(b->grpc_target());
    for (int64_t e = 0; e < kEntries; ++e) {
      if (e < 2) {
        before_intact &= ReadsBackIntact(stub.get(), L, e, size_of(e));
      } else {
        from_cut_gone &= Read(stub.get(), L, e).status() == proto::BK_ENOENTRY;
      }
    }
  }
  CHECK(before_intact);
  CHECK(from_cut_gone);

  fault::Figures fig("torn_journal_process");
  const std::string item = "3 torn journal (process)";
  fig.Add(item, "sampled tail cuts: bookie started",
          absl::StrCat(started, "/", cuts.size()), "all",
          started == static_cast<int>(cuts.size()));
  fig.Add(item, "cut record never served",
          absl::StrCat(never_served, "/", cuts.size()), "all",
          never_served == static_cast<int>(cuts.size()));
  fig.Add(item, "middle bit flip: start refused naming file+offset",
          refused && clear ? "yes" : "no", "yes", refused && clear);
  fig.Add(item, "skip mode: started, reported, damaged entry not served",
          reported && damaged_not_served && rest_intact ? "yes" : "no", "yes",
          reported && damaged_not_served && rest_intact);
  fig.Add(item, "printed journalCutNewestTailAt: started, cut at the record",
          before_intact && from_cut_gone ? "yes" : "no", "yes",
          before_intact && from_cut_gone);
}

// ---------------------------------------------------------------- item 4

struct EioOutcome {
  int acked = 0;
  int acked_after_failure = 0;
  int refused_after_failure = 0;
  double unwritable_after_s = -1;  // from the first failed add
  std::string ready_body;
  bool status_zero = false;
  bool acked_intact_after_restart = true;
};

// Adds entries one at a time until one fails, then `after` more; watches
// /ready and /metrics for the failure.
EioOutcome RunEio(const std::string& name,
                  std::map<std::string, std::string> flags) {
  TempDir dir;
  BookieProcessOptions o =
      BookieOptions(dir, name, FreshZkUri(name), Flags(std::move(flags)));
  o.binary = TestingBookieBinary();  // testingFailSyncNth
  auto b = StartBookie(std::move(o));
  auto stub = Connect(b->grpc_target());
  constexpr uint64_t L = 9;
  EioOutcome out;
  std::vector<int64_t> acked;
  int64_t e = 0;
  absl::Time failed_at = absl::InfiniteFuture();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  int after = 0;
  while (after < 30 && absl::Now() < deadline) {
    const proto::StatusCode s = AddOne(stub.get(), MakeAdd(L, e, "k", 200));
    if (s == proto::BK_EOK) {
      if (failed_at == absl::InfiniteFuture()) {
        acked.push_back(e);
        ++out.acked;
      } else {
        ++out.acked_after_failure;
      }
    } else {
      if (failed_at == absl::InfiniteFuture()) failed_at = absl::Now();
      ++out.refused_after_failure;
    }
    if (failed_at != absl::InfiniteFuture()) ++after;
    ++e;
  }
  REQUIRE(failed_at != absl::InfiniteFuture());
  const bool unwritable = PollUntil(
      [&] {
        auto r = HttpGet(b->http_port(), "/ready");
        if (!absl::StrContains(r.body, "read-only")) return false;
        out.ready_body = r.body;
        return true;
      },
      absl::Seconds(5), absl::Milliseconds(5));
  if (unwritable)
    out.unwritable_after_s = absl::ToDoubleSeconds(absl::Now() - failed_at);
  out.status_zero = ServerStatusZero(b->http_port());
  // Acknowledged entries survive: still served now, and after a restart
  // without the fault.
  for (int64_t a : acked)
    out.acked_intact_after_restart &= ReadsBackIntact(stub.get(), L, a, 200);
  b->Kill();
  BK_REQUIRE_OK(b->Restart({{"testingFailSyncNth", "0"}}));
  stub = Connect(b->grpc_target());
  for (int64_t a : acked)
    out.acked_intact_after_restart &= ReadsBackIntact(stub.get(), L, a, 200);
  return out;
}

void ReportEio(const std::string& which, const EioOutcome& o) {
  INFO(which << ": /ready said: " << o.ready_body);
  CHECK(o.acked > 0);
  CHECK(o.acked_after_failure == 0);
  CHECK(o.unwritable_after_s >= 0);
  CHECK(o.unwritable_after_s <= 1.0);
  CHECK(o.status_zero);
  CHECK(o.acked_intact_after_restart);
  fault::Figures fig("fsync_eio_" + which);
  const std::string item = "4 fsync EIO on " + which;
  fig.Add(item, "adds acknowledged after the failure",
          absl::StrCat(o.acked_after_failure, " (", o.acked, " before, ",
                       o.refused_after_failure, " refused after)"),
          "0", o.acked_after_failure == 0);
  fig.Add(item, "unwritable in /ready after the failure, s",
          o.unwritable_after_s < 0
              ? "never"
              : absl::StrFormat("%.3f", o.unwritable_after_s),
          "<= 1", o.unwritable_after_s >= 0 && o.unwritable_after_s <= 1.0);
  fig.Add(item, "bookie_server_status 0 and reason in /ready",
          o.status_zero ? "yes" : "no", "yes",
          o.status_zero && !o.ready_body.empty());
  fig.Add(item, "acknowledged entries intact after restart",
          o.acked_intact_after_restart ? "yes" : "no", "yes",
          o.acked_intact_after_restart);
}

TEST_CASE(
    "EIO on a journal fsync: no add acknowledged after it, unwritable "
    "within 1 s in /ready and metrics",
    "[fault][eio]") {
  Seed();
  EioOutcome o = RunEio("bk-eio-journal", {{"testingFailSyncNth", "25"},
                                           {"testingFailSyncPath", ".jnl"}});
  ReportEio("journal", o);
}

TEST_CASE(
    "EIO on an entry-log fsync: no add acknowledged after it, unwritable "
    "within 1 s in /ready and metrics",
    "[fault][eio]") {
  Seed();
  EioOutcome o = RunEio("bk-eio-entrylog", {{"testingFailSyncNth", "1"},
                                            {"testingFailSyncPath", ".log"},
                                            {"flushInterval", "300"}});
  ReportEio("entry log", o);
}

// ---------------------------------------------------------------- item 5

// A size-limited tmpfs at `path`, unmounted (lazily) on destruction.
class Tmpfs {
 public:
  Tmpfs(const std::string& path, uint64_t bytes) : path_(path) {
    fs::create_directories(path);
    mounted_ = mount("tmpfs", path.c_str(), "tmpfs", 0,
                     absl::StrCat("size=", bytes).c_str()) == 0;
    if (!mounted_) error_ = strerror(errno);
  }
  ~Tmpfs() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  double Usage() const {
    struct statvfs s;
    if (statvfs(path_.c_str(), &s) != 0) return -1;
    return 1.0 -
           static_cast<double>(s.f_bavail) / static_cast<double>(s.f_blocks);
  }
  uint64_t Total() const {
    struct statvfs s;
    statvfs(path_.c_str(), &s);
    return static_cast<uint64_t>(s.f_blocks) * s.f_frsize;
  }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

TEST_CASE(
    "a full disk turns the bookie read-only within one check interval, "
    "reads go on, writable again below the low-water mark, nothing lost",
    "[fault][disk]") {
  Seed();
  TempDir dir;
  Tmpfs disk(dir.Sub("disk"), 48u << 20);
  if (!disk.mounted()) {
    WARN("tmpfs mount refused (" << disk.error() << "): test skipped");
    fault::Figures fig("disk_full");
    fig.Add("5 disk full", "tmpfs mount", "refused: " + disk.error(), "mounted",
            false);
    return;
  }
  constexpr int kIntervalMs = 500;
  auto o =
      BookieOptions(dir, "bk-full", FreshZkUri("full"),
                    Flags({{"journalDirectories", dir.Sub("disk") + "/journal"},
                           {"ledgerDirectories", dir.Sub("disk") + "/ledgers"},
                           {"diskUsageThreshold", "0.70"},
                           {"diskUsageWarnThreshold", "0.60"},
                           {"diskUsageLwmThreshold", "0.50"},
                           {"diskCheckInterval", absl::StrCat(kIntervalMs)},
                           {"flushInterval", "200"}}));
  auto md = OpenMetadata(o.metadata_uri);
  auto b = StartBookie(o);
  auto stub = Connect(b->grpc_target());
  constexpr uint64_t L = 4;
  int64_t e = 0;
  std::vector<int64_t> acked;
  for (; e < 50; ++e) {
    REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k", 1000)) == proto::BK_EOK);
    acked.push_back(e);
  }
  const double base = disk.Usage();
  INFO("usage before filling " << base);
  REQUIRE(base < 0.45);

  // Fill to 85 %.
  const std::string filler = dir.Sub("disk") + "/filler";
  {
    const uint64_t want = static_cast<uint64_t>(
        (0.85 - base) * static_cast<double>(disk.Total()));
    std::ofstream f(filler, std::ios::binary);
    std::string chunk(1 << 20, 'x');
    for (uint64_t w = 0; w < want; w += chunk.size())
      f.write(chunk.data(), static_cast<std::streamsize>(
                                std::min<uint64_t>(chunk.size(), want - w)));
  }
  const absl::Time filled = absl::Now();
  const bool went_ro = PollUntil(
      [&] {
        return absl::StrContains(HttpGet(b->http_port(), "/ready").body,
                                 "read-only");
      },
      absl::Seconds(10), absl::Milliseconds(10));
  const double ro_after_s = absl::ToDoubleSeconds(absl::Now() - filled);
  REQUIRE(went_ro);
  const bool registered_ro = PollUntil(
      [&] { return Registration(md.get(), "bk-full") == Reg::kReadOnly; },
      absl::Seconds(10));
  CHECK(registered_ro);
  const bool add_refused =
      AddOne(stub.get(), MakeAdd(L, e, "k", 1000)) == proto::BK_EREADONLY;
  CHECK(add_refused);
  bool reads_ok = true;
  for (int64_t a : acked) reads_ok &= ReadsBackIntact(stub.get(), L, a, 1000);
  CHECK(reads_ok);

  // Below the low-water mark again.
  fs::remove(filler);
  const absl::Time freed = absl::Now();
  const bool back = PollUntil(
      [&] {
        return absl::StrContains(HttpGet(b->http_port(), "/ready").body,
                                 "ready: writable");
      },
      absl::Seconds(10), absl::Milliseconds(10));
  const double rw_after_s = absl::ToDoubleSeconds(absl::Now() - freed);
  CHECK(back);
  for (int k = 0; k < 20; ++k, ++e) {
    REQUIRE(AddOne(stub.get(), MakeAdd(L, e, "k", 1000)) == proto::BK_EOK);
    acked.push_back(e);
  }
  // Nothing lost, through a crash too.
  b->Kill();
  BK_REQUIRE_OK(b->Restart());
  stub = Connect(b->grpc_target());
  int lost = 0;
  for (int64_t a : acked)
    lost += ReadsBackIntact(stub.get(), L, a, 1000) ? 0 : 1;
  CHECK(lost == 0);

  // One interval, plus the polling step and a scheduling margin on a
  // loaded 2-core machine.
  const double bound = kIntervalMs / 1000.0 + 0.25;
  fault::Figures fig("disk_full");
  const std::string item = "5 disk full (tmpfs)";
  fig.Add(item,
          absl::StrCat("read-only after filling, s (interval ", kIntervalMs,
                       " ms)"),
          absl::StrFormat("%.3f", ro_after_s),
          absl::StrFormat("<= %.2f", bound), went_ro && ro_after_s <= bound);
  fig.Add(item, "adds refused EREADONLY, reads served while full",
          add_refused && reads_ok ? "yes" : "no", "yes",
          add_refused && reads_ok);
  fig.Add(item, "writable after freeing, s",
          absl::StrFormat("%.3f", rw_after_s),
          absl::StrFormat("<= %.2f", bound), back && rw_after_s <= bound);
  fig.Add(item, "acknowledged entries lost",
          absl::StrCat(lost, " of ", acked.size()), "0", lost == 0);
}

}  // namespace
}  // namespace bk::it
