// A real bookie process against a real ZooKeeper: registration follows the
// process, read-only follows forced and full-disk states, cookies guard the
// directories.

#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test/integration/bookie/bookie_it_util.h"
#include "test/support/http_get.h"

namespace bk::it {
namespace {

using bk::testing::HttpGet;

TEST_CASE("registration appears when ready and goes on SIGTERM with exit 0",
          "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("reg-term");
  auto md = OpenMetadata(uri);
  auto b = StartBookie(BookieOptions(dir, "bk-term", uri));
  CHECK(Registration(md.get(), "bk-term") == Reg::kWritable);
  {
    auto set = md->ListBookies();
    REQUIRE(set.ok());
    REQUIRE(set->writable.size() == 1);
    CHECK(set->writable[0].grpc_endpoint() == b->grpc_target());
    CHECK(set->writable[0].network_location() ==
          "/default-region/default-rack");
  }
  CHECK(HttpGet(b->http_port(), "/health").status == 200);
  auto ready = HttpGet(b->http_port(), "/ready");
  CHECK(ready.status == 200);
  CHECK(ready.body.find("writable") != std::string::npos);

  b->Signal(SIGTERM);
  auto exit = b->WaitExit(absl::Seconds(15));
  REQUIRE(exit.ok());
  CHECK(exit->signal == 0);
  CHECK(exit->exit_code == 0);
  // Unregistered before exit: no wait for a session timeout.
  CHECK(Registration(md.get(), "bk-term") == Reg::kAbsent);
}

TEST_CASE(
    "a bookie with zkEnableSecurity registers where a session without the "
    "credentials cannot open the cluster",
    "[integration][bookie][security]") {
  TempDir dir;
  const std::string digest = dir.Sub("zk-digest");
  {
    std::ofstream out(digest);
    out << "bookkeeper:s3cret\n";
  }
  REQUIRE(::chmod(digest.c_str(), 0600) == 0);
  const std::string uri = FreshZkUri("reg-secure");
  auto b = StartBookie(
      BookieOptions(dir, "bk-secure", uri,
                    {{"zkEnableSecurity", "true"}, {"zkDigestFile", digest}}));
  metadata::OpenOptions secured;
  secured.zk_enable_security = true;
  secured.zk_digest_file = digest;
  auto md = metadata::Open(uri, secured);
  REQUIRE(md.ok());
  CHECK(Registration(md->get(), "bk-secure") == Reg::kWritable);
  auto anonymous = metadata::Open(uri);
  CHECK(absl::IsPermissionDenied(anonymous.status()));

  b->Signal(SIGTERM);
  auto exit = b->WaitExit(absl::Seconds(15));
  REQUIRE(exit.ok());
  CHECK(exit->exit_code == 0);
  CHECK(Registration(md->get(), "bk-secure") == Reg::kAbsent);
}

TEST_CASE("registration of a SIGKILLed bookie goes after the session timeout",
          "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("reg-kill");
  auto md = OpenMetadata(uri);
  auto b =
      StartBookie(BookieOptions(dir, "bk-kill", uri, {{"zkTimeout", "1000"}}));
  REQUIRE(Registration(md.get(), "bk-kill") == Reg::kWritable);
  b->Kill();
  const absl::Time killed = absl::Now();
  CHECK(PollUntil(
      [&] { return Registration(md.get(), "bk-kill") == Reg::kAbsent; },
      absl::Seconds(10)));
  INFO("gone after " << absl::FormatDuration(absl::Now() - killed));
  CHECK(absl::Now() - killed < absl::Seconds(8));
}

TEST_CASE("a second bookie with a live bookie's id refuses to start",
          "[integration][bookie]") {
  TempDir dir1, dir2;
  const std::string uri = FreshZkUri("dup");
  auto first = StartBookie(BookieOptions(dir1, "bk-dup", uri));

  SECTION("on other directories") {
    // zkTimeout 1 s: it waits two session timeouts for the id to go.
    auto second = BookieProcess::Launch(
        BookieOptions(dir2, "bk-dup", uri, {{"zkTimeout", "1000"}}));
    REQUIRE(second.ok());
    auto exit = (*second)->WaitExit(absl::Seconds(20));
    REQUIRE(exit.ok());
    CHECK(exit->exit_code == 1);
    const std::string log = (*second)->Log();
    INFO(log);
    CHECK(log.find("bookie: ") != std::string::npos);
    CHECK(log.find("another live bookie is registered as bk-dup") !=
          std::string::npos);
  }
  SECTION("on the same directories") {
    BookieProcessOptions o =
        BookieOptions(dir1, "bk-dup", uri, {{"zkTimeout", "1000"}});
    o.root = dir2.path();  // logs apart; dirs are the first bookie's
    o.flags["journalDirectories"] = dir1.Sub("journal");
    o.flags["ledgerDirectories"] = dir1.Sub("ledgers");
    auto second = BookieProcess::Launch(o);
    REQUIRE(second.ok());
    auto exit = (*second)->WaitExit(absl::Seconds(20));
    REQUIRE(exit.ok());
    CHECK(exit->exit_code == 1);
    const std::string log = (*second)->Log();
    INFO(log);
    CHECK(log.find("another live bookie is registered as bk-dup") !=
          std::string::npos);
  }
  // The first one is untouched.
  CHECK(HttpGet(first->http_port(), "/ready").status == 200);
  auto stub = Connect(first->grpc_target());
  CHECK(AddOne(stub.get(), MakeAdd(1, 0)) == proto::BK_EOK);
  CHECK(ReadsBackIntact(stub.get(), 1, 0));
}

TEST_CASE(
    "a forced read-only bookie registers read-only, refuses adds, "
    "serves reads",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("force-ro");
  auto md = OpenMetadata(uri);
  auto b = StartBookie(BookieOptions(dir, "bk-ro", uri));
  {
    auto stub = Connect(b->grpc_target());
    for (int e = 0; e < 5; ++e)
      REQUIRE(AddOne(stub.get(), MakeAdd(7, e)) == proto::BK_EOK);
  }
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());

  BK_REQUIRE_OK(b->Restart({{"forceReadOnlyBookie", "true"}}));
  CHECK(Registration(md.get(), "bk-ro") == Reg::kReadOnly);
  auto ready = HttpGet(b->http_port(), "/ready");
  CHECK(ready.status == 200);
  CHECK(ready.body.find("read-only") != std::string::npos);
  auto stub = Connect(b->grpc_target());
  CHECK(AddOne(stub.get(), MakeAdd(7, 5)) == proto::BK_EREADONLY);
  CHECK(AddOne(stub.get(), MakeAdd(8, 0)) == proto::BK_EREADONLY);
  for (int e = 0; e < 5; ++e) CHECK(ReadsBackIntact(stub.get(), 7, e));
}

// A small tmpfs of our own, so the test can fill the bookie's disk. Falls
// back to nothing (the caller skips) where mounting is not permitted.
class SmallFs {
 public:
  SmallFs(const std::string& dir, const std::string& size) : dir_(dir) {
    std::filesystem::create_directories(dir);
    const std::string opts = "size=" + size;
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, opts.c_str()) == 0;
  }
  ~SmallFs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

void FillFile(const std::string& path, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string chunk(1 << 16, 'x');
  for (size_t done = 0; done < bytes; done += chunk.size())
    out.write(chunk.data(), static_cast<std::streamsize>(
                                std::min(chunk.size(), bytes - done)));
}

TEST_CASE(
    "a full disk turns the bookie read-only within a disk check and "
    "back when space returns",
    "[integration][bookie]") {
  TempDir dir;
  SmallFs fs(dir.Sub("disk"), "32m");
  if (!fs.mounted()) {
    WARN(
        "cannot mount a tmpfs here (not root?): full-disk test skipped; "
        "the forced read-only test covers the read-only path");
    return;
  }
  const std::string uri = FreshZkUri("disk-full");
  auto md = OpenMetadata(uri);
  auto o = BookieOptions(dir, "bk-full", uri,
                         {{"journalDirectories", dir.Sub("disk/journal")},
                          {"ledgerDirectories", dir.Sub("disk/ledgers")},
                          {"diskCheckInterval", "200"},
                          {"diskUsageThreshold", "0.7"},
                          {"diskUsageWarnThreshold", "0.6"},
                          {"diskUsageLwmThreshold", "0.5"}});
  auto b = StartBookie(o);
  REQUIRE(Registration(md.get(), "bk-full") == Reg::kWritable);
  auto stub = Connect(b->grpc_target());
  REQUIRE(AddOne(stub.get(), MakeAdd(3, 0)) == proto::BK_EOK);

  // Fill to about 80 %.
  FillFile(dir.Sub("disk/filler"), 26u << 20);
  const absl::Time filled = absl::Now();
  CHECK(PollUntil(
      [&] { return Registration(md.get(), "bk-full") == Reg::kReadOnly; },
      absl::Seconds(5)));
  INFO("read-only after " << absl::FormatDuration(absl::Now() - filled));
  auto ready = HttpGet(b->http_port(), "/ready");
  CHECK(ready.status == 200);
  CHECK(ready.body.find("read-only") != std::string::npos);
  CHECK(AddOne(stub.get(), MakeAdd(3, 1)) == proto::BK_EREADONLY);
  CHECK(ReadsBackIntact(stub.get(), 3, 0));

  // Free it: below the low-water mark the bookie is writable again.
  std::filesystem::remove(dir.Sub("disk/filler"));
  CHECK(PollUntil(
      [&] { return Registration(md.get(), "bk-full") == Reg::kWritable; },
      absl::Seconds(5)));
  CHECK(HttpGet(b->http_port(), "/ready").body.find("writable") !=
        std::string::npos);
  CHECK(AddOne(stub.get(), MakeAdd(3, 1)) == proto::BK_EOK);
  b->Signal(SIGTERM);
  CHECK(b->WaitExit(absl::Seconds(15)).ok());
}

TEST_CASE(
    "a changed ledger directory list refuses start and names the "
    "difference",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("cookie-dirs");
  auto b = StartBookie(BookieOptions(dir, "bk-cookie", uri));
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());

  const std::string two = dir.Sub("ledgers") + "," + dir.Sub("ledgers2");
  BK_REQUIRE_OK(b->Restart({{"ledgerDirectories", two}}, /*wait=*/false));
  auto exit = b->WaitExit(absl::Seconds(20));
  REQUIRE(exit.ok());
  CHECK(exit->exit_code == 1);
  const std::string log = b->Log();
  INFO(log);
  CHECK(log.find("bookie: ") != std::string::npos);
  CHECK(log.find("ledgers2") != std::string::npos);

  // Back to the old list: it starts.
  BK_REQUIRE_OK(b->Restart({{"ledgerDirectories", dir.Sub("ledgers")}}));
}

TEST_CASE(
    "wiped directories of a known bookie refuse start until "
    "`bookie format --yes`",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("cookie-wipe");
  auto o = BookieOptions(dir, "bk-wiped", uri);
  auto b = StartBookie(o);
  {
    auto stub = Connect(b->grpc_target());
    REQUIRE(AddOne(stub.get(), MakeAdd(4, 0)) == proto::BK_EOK);
  }
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  std::filesystem::remove_all(dir.Sub("journal"));
  std::filesystem::remove_all(dir.Sub("ledgers"));

  BK_REQUIRE_OK(b->Restart({}, /*wait=*/false));
  auto exit = b->WaitExit(absl::Seconds(20));
  REQUIRE(exit.ok());
  CHECK(exit->exit_code == 1);
  {
    const std::string log = b->Log();
    INFO(log);
    CHECK(log.find("wiped") != std::string::npos);
    CHECK(log.find("bookie format") != std::string::npos);
  }

  const std::vector<std::string> args = {
      "format", "--bookieId=bk-wiped", "--metadataServiceUri=" + uri,
      "--journalDirectories=" + dir.Sub("journal"),
      "--ledgerDirectories=" + dir.Sub("ledgers")};
  auto no = bk::testing::RunProcess(BookieBinary(), args, absl::Seconds(20));
  REQUIRE(no.ok());
  CHECK(no->exit.exit_code == 1);  // without --yes: refuses
  CHECK(no->err.find("--yes") != std::string::npos);
  auto with_yes = args;
  with_yes.push_back("--yes");
  auto yes =
      bk::testing::RunProcess(BookieBinary(), with_yes, absl::Seconds(20));
  REQUIRE(yes.ok());
  INFO(yes->err);
  CHECK(yes->exit.exit_code == 0);

  BK_REQUIRE_OK(b->Restart());
  auto stub = Connect(b->grpc_target());
  CHECK(Read(stub.get(), 4, 0).status() != proto::BK_EOK);  // empty bookie
  CHECK(AddOne(stub.get(), MakeAdd(4, 0)) == proto::BK_EOK);
}

TEST_CASE(
    "`bookie format` refuses while the bookie runs, and while it is "
    "registered unless --force",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("format-live");
  auto b = StartBookie(BookieOptions(dir, "bk-live", uri));
  auto stub = Connect(b->grpc_target());
  REQUIRE(AddOne(stub.get(), MakeAdd(5, 0)) == proto::BK_EOK);
  const std::vector<std::string> format = {
      "format",
      "--bookieId=bk-live",
      "--metadataServiceUri=" + uri,
      "--journalDirectories=" + dir.Sub("journal"),
      "--ledgerDirectories=" + dir.Sub("ledgers"),
      "--yes"};
  auto with_force = format;
  with_force.push_back("--force");

  // Running here: its directories are locked; --force does not override a
  // live process.
  for (const auto& args : {format, with_force}) {
    auto r = bk::testing::RunProcess(BookieBinary(), args, absl::Seconds(20));
    REQUIRE(r.ok());
    INFO(r->err);
    CHECK(r->exit.exit_code == 1);
    CHECK(r->err.find("format refused") != std::string::npos);
    CHECK(r->err.find("in use by a running bookie (pid ") != std::string::npos);
  }
  CHECK(Read(stub.get(), 5, 0).status() == proto::BK_EOK);
  CHECK(HttpGet(b->http_port(), "/ready").status == 200);

  // Stopped here, but registered (running elsewhere with these settings,
  // or dead for less than a session timeout): refused, naming --force.
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  auto md = OpenMetadata(uri);
  proto::BookieServiceInfo elsewhere;
  elsewhere.set_bookie_id("bk-live");
  elsewhere.set_grpc_endpoint("10.0.0.9:3181");
  REQUIRE(md->RegisterBookie(elsewhere).ok());
  {
    auto r = bk::testing::RunProcess(BookieBinary(), format, absl::Seconds(20));
    REQUIRE(r.ok());
    INFO(r->err);
    CHECK(r->exit.exit_code == 1);
    CHECK(r->err.find("is registered") != std::string::npos);
    CHECK(r->err.find("10.0.0.9:3181") != std::string::npos);
    CHECK(r->err.find("--force") != std::string::npos);
  }
  {
    auto r =
        bk::testing::RunProcess(BookieBinary(), with_force, absl::Seconds(20));
    REQUIRE(r.ok());
    INFO(r->err);
    CHECK(r->exit.exit_code == 0);
  }
  REQUIRE(md->UnregisterBookie("bk-live").ok());
  BK_REQUIRE_OK(b->Restart());
  stub = Connect(b->grpc_target());
  CHECK(Read(stub.get(), 5, 0).status() != proto::BK_EOK);  // formatted
}

}  // namespace
}  // namespace bk::it
