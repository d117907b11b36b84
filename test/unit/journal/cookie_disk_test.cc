// Cookies (cookie.h) and the disk usage checker (disk_checker.h).

#include <catch2/catch.hpp>

#include "absl/synchronization/mutex.h"
#include "bookie/cookie.h"
#include "bookie/disk_checker.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;

proto::Cookie Expected(const TempDir& d, const std::string& bookie = "b1",
                       const std::string& instance = "cluster-a") {
  return MakeCookie(bookie, instance, {d.Sub("j0")},
                    {d.Sub("l0"), d.Sub("l1")});
}

TEST_CASE("first start on empty directories writes a cookie to each",
          "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());
  for (const char* sub : {"j0", "l0", "l1"}) {
    auto c = ReadCookie(Env::Default(), d.Sub(sub));
    REQUIRE(c.ok());
    CHECK(CookieDifferences(*c, Expected(d)).empty());
  }
  CHECK(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());  // restart
}

TEST_CASE("a missing cookie in a used bookie refuses start", "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());
  REQUIRE(Env::Default()->RemoveFile(d.Sub("l1/COOKIE")).ok());
  absl::Status s = VerifyOrCreateCookies(Env::Default(), Expected(d));
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(s.message().find(d.Sub("l1") + ": no cookie") !=
        absl::string_view::npos);
  CHECK(s.message().find("format") != absl::string_view::npos);
}

TEST_CASE("a foreign cookie refuses start and names what differs",
          "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(VerifyOrCreateCookies(Env::Default(), Expected(d, "other")).ok());
  absl::Status s = VerifyOrCreateCookies(Env::Default(), Expected(d));
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(s.message().find("another bookie") != absl::string_view::npos);
  CHECK(s.message().find("bookie id is 'other', expected 'b1'") !=
        absl::string_view::npos);
  absl::Status t =
      VerifyOrCreateCookies(Env::Default(), Expected(d, "other", "x"));
  CHECK(t.message().find("instance id is 'cluster-a', expected 'x'") !=
        absl::string_view::npos);
}

TEST_CASE("a cookie whose directories differ refuses start", "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());
  proto::Cookie reordered =
      MakeCookie("b1", "cluster-a", {d.Sub("j0")}, {d.Sub("l1"), d.Sub("l0")});
  absl::Status s = VerifyOrCreateCookies(Env::Default(), reordered);
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(s.message().find("ledger dirs") != absl::string_view::npos);
}

TEST_CASE("data without a cookie refuses start and format repairs it",
          "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(Env::Default()->CreateDirRecursive(d.Sub("j0")).ok());
  testing::WriteRaw(d.Sub("j0/0000000000000001.jnl"), "old");
  CHECK(absl::IsFailedPrecondition(
      VerifyOrCreateCookies(Env::Default(), Expected(d))));
  REQUIRE(FormatDirectories(Env::Default(), Expected(d)).ok());
  CHECK_FALSE(Env::Default()->FileExists(d.Sub("j0/0000000000000001.jnl")));
  CHECK(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());
}

TEST_CASE("a corrupt cookie file refuses start", "[journal]") {
  TempDir d(TempDir::Where::kMemory);
  REQUIRE(VerifyOrCreateCookies(Env::Default(), Expected(d)).ok());
  testing::WriteRaw(d.Sub("j0/COOKIE"), "bookie_id: \"b1\" garbage {");
  CHECK(absl::IsFailedPrecondition(
      VerifyOrCreateCookies(Env::Default(), Expected(d))));
}

// An Env whose filesystem usage the test sets.
class FakeFsEnv : public EnvWrapper {
 public:
  FakeFsEnv() : EnvWrapper(Env::Default()) {}
  void SetUsage(const std::string& dir, double used) {
    absl::MutexLock l(&mu_);
    used_[dir] = used;
  }
  void SetBroken(const std::string& dir) {
    absl::MutexLock l(&mu_);
    used_[dir] = -1;
  }
  absl::StatusOr<FsStats> GetFsStats(const std::string& path) override {
    absl::MutexLock l(&mu_);
    const double used = used_[path];
    if (used < 0) return absl::InternalError("statvfs: EIO");
    FsStats s;
    s.total_bytes = 1000000;
    s.free_bytes = static_cast<uint64_t>((1.0 - used) * 1000000);
    return s;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, double> used_ ABSL_GUARDED_BY(mu_);
};

TEST_CASE(
    "disk checker turns read-only above the threshold and back only "
    "below the low-water mark",
    "[journal]") {
  FakeFsEnv env;
  DiskCheckerOptions o;
  o.usage_threshold = 0.95;
  o.warn_threshold = 0.85;
  o.lwm_threshold = 0.80;
  REQUIRE(o.Validate().ok());
  DiskChecker checker(&env, {"/a", "/b"}, o);
  env.SetUsage("/a", 0.50);
  env.SetUsage("/b", 0.10);
  CHECK(checker.Check().state == DiskState::kWritable);
  env.SetUsage("/a", 0.86);
  DiskCheckResult r = checker.Check();
  CHECK(r.state == DiskState::kWarning);
  CHECK(r.changed());
  env.SetUsage("/a", 0.96);
  CHECK(checker.Check().state == DiskState::kReadOnly);
  CHECK(checker.state() == DiskState::kReadOnly);
  env.SetUsage("/a", 0.90);  // below the threshold, above the lwm
  r = checker.Check();
  CHECK(r.state == DiskState::kReadOnly);
  CHECK_FALSE(r.changed());
  env.SetUsage("/a", 0.82);  // below warn but still above the lwm
  CHECK(checker.Check().state == DiskState::kReadOnly);
  env.SetUsage("/a", 0.79);
  CHECK(checker.Check().state == DiskState::kWritable);
  env.SetUsage("/b", 0.97);  // any directory full is enough
  CHECK(checker.Check().state == DiskState::kReadOnly);
}

TEST_CASE(
    "one full ledger directory of two leaves the bookie writable, all of "
    "them, or a journal directory, turn it read-only",
    "[journal]") {
  FakeFsEnv env;
  DiskCheckerOptions o;
  o.usage_threshold = 0.95;
  o.warn_threshold = 0.85;
  o.lwm_threshold = 0.80;
  DiskChecker checker(&env, {"/l0", "/l1"}, {"/j"}, o);
  env.SetUsage("/l0", 0.10);
  env.SetUsage("/l1", 0.10);
  env.SetUsage("/j", 0.10);
  CHECK(checker.Check().state == DiskState::kWritable);
  env.SetUsage("/l0", 0.97);
  DiskCheckResult r = checker.Check();
  CHECK(r.state == DiskState::kWarning);  // writable, with a warning
  REQUIRE(r.dirs.size() == 3);
  CHECK(r.dirs[0].dir == "/l0");
  CHECK(r.dirs[0].full);
  CHECK_FALSE(r.dirs[0].journal);
  CHECK_FALSE(r.dirs[1].full);
  CHECK(r.dirs[2].journal);
  env.SetUsage("/l0", 0.90);  // still full: not yet below the lwm
  CHECK(checker.Check().dirs[0].full);
  env.SetUsage("/l1", 0.96);  // every ledger directory full
  CHECK(checker.Check().state == DiskState::kReadOnly);
  env.SetUsage("/l1", 0.70);  // one is back below the lwm
  r = checker.Check();
  CHECK(r.state == DiskState::kWarning);
  CHECK(r.dirs[0].full);
  CHECK_FALSE(r.dirs[1].full);
  env.SetUsage("/j", 0.99);  // a full journal is enough
  CHECK(checker.Check().state == DiskState::kReadOnly);
  env.SetUsage("/j", 0.10);
  env.SetUsage("/l0", 0.50);
  r = checker.Check();
  CHECK(r.state == DiskState::kWritable);
  CHECK_FALSE(r.dirs[0].full);
}

TEST_CASE("disk checker counts an unreadable directory as full", "[journal]") {
  FakeFsEnv env;
  DiskChecker checker(&env, {"/a"}, DiskCheckerOptions{});
  env.SetBroken("/a");
  DiskCheckResult r = checker.Check();
  CHECK(r.state == DiskState::kReadOnly);
  CHECK_FALSE(r.dirs[0].error.ok());
}

TEST_CASE("disk checker options reject a low-water mark above the threshold",
          "[journal]") {
  DiskCheckerOptions o;
  o.lwm_threshold = 0.99;
  CHECK(absl::IsInvalidArgument(o.Validate()));
}

}  // namespace
}  // namespace bk::bookie
