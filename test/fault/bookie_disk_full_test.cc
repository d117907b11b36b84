// A real bookie on a full disk (item 5), a size-limited tmpfs mounted
// under the test's directory: read-only within one check interval, reads
// go on, writable again below the low-water mark, nothing lost.
//
// Prints its seed and writes its figures (figures.h).

#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "test/fault/bookie_fault_util.h"
#include "test/fault/figures.h"
#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

namespace fs = std::filesystem;
using bk::testing::HttpGet;

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
