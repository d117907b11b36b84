// bkctl updatecookie on a real bookie's directories: after its disks are
// remounted under new paths the bookie refuses to start, the command shows
// the moves, writes the cookies only with --yes, and the bookie then starts
// on the moved directories with its data. It refuses a running bookie, a
// changed number of directories and a changed bookie id.

#include <signal.h>

#include <filesystem>
#include <fstream>

#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

namespace fs = std::filesystem;

bk::testing::RunResult Bkctl(std::vector<std::string> args) {
  auto r =
      bk::testing::RunProcess(BKCTL_PATH, std::move(args), absl::Seconds(30));
  REQUIRE(r.ok());
  return *r;
}

// A bookie config file naming `journal` and `ledgers` (comma-separated).
std::string WriteConf(const TempDir& dir, const std::string& name,
                      const std::string& id, const std::string& uri,
                      const std::string& journal, const std::string& ledgers) {
  const std::string path = dir.Sub(name);
  std::ofstream(path) << "bookieId=" << id << "\nmetadataServiceUri=" << uri
                      << "\njournalDirectories=" << journal
                      << "\nledgerDirectories=" << ledgers << "\n";
  return path;
}

TEST_CASE(
    "bkctl updatecookie follows moved directories, only with --yes, and "
    "refuses what would hide data",
    "[integration][bookie]") {
  TempDir dir;
  const std::string uri = FreshZkUri("updatecookie");
  auto b = StartBookie(BookieOptions(dir, "bk-move", uri));
  {
    auto stub = Connect(b->grpc_target());
    REQUIRE(AddOne(stub.get(), MakeAdd(4, 0)) == proto::BK_EOK);
  }
  const std::string old_conf = WriteConf(
      dir, "old.conf", "bk-move", uri, dir.Sub("journal"), dir.Sub("ledgers"));
  auto running = Bkctl({"updatecookie", "--conf", old_conf});
  CHECK(running.exit.exit_code == 1);
  CHECK(running.err.find("stop the bookie first") != std::string::npos);

  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  fs::rename(dir.Sub("journal"), dir.Sub("journal-moved"));
  fs::rename(dir.Sub("ledgers"), dir.Sub("ledgers-moved"));
  const std::map<std::string, std::string> moved = {
      {"journalDirectories", dir.Sub("journal-moved")},
      {"ledgerDirectories", dir.Sub("ledgers-moved")}};
  const std::string conf =
      WriteConf(dir, "moved.conf", "bk-move", uri, dir.Sub("journal-moved"),
                dir.Sub("ledgers-moved"));

  // The moved directories' cookies name the old paths: start refused.
  BK_REQUIRE_OK(b->Restart(moved, /*wait=*/false));
  auto refused = b->WaitExit(absl::Seconds(20));
  REQUIRE(refused.ok());
  CHECK(refused->exit_code == 1);

  auto plan = Bkctl({"updatecookie", "--conf", conf});
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit.exit_code == 0);
  CHECK(plan.out.find("journal dir 0: " + dir.Sub("journal") + " -> " +
                      dir.Sub("journal-moved")) != std::string::npos);
  CHECK(plan.out.find("--yes") != std::string::npos);
  BK_REQUIRE_OK(b->Restart(moved, /*wait=*/false));
  auto still = b->WaitExit(absl::Seconds(20));
  REQUIRE(still.ok());
  CHECK(still->exit_code == 1);  // nothing was written without --yes

  // Refused: one more (empty) ledger directory; another bookie id.
  const std::string grown =
      WriteConf(dir, "grown.conf", "bk-move", uri, dir.Sub("journal-moved"),
                dir.Sub("ledgers-moved") + "," + dir.Sub("ledgers-new"));
  auto more = Bkctl({"updatecookie", "--conf", grown, "--yes"});
  CHECK(more.exit.exit_code == 1);
  CHECK(more.err.find("cannot change") != std::string::npos);
  const std::string renamed =
      WriteConf(dir, "renamed.conf", "bk-other", uri, dir.Sub("journal-moved"),
                dir.Sub("ledgers-moved"));
  auto other = Bkctl({"updatecookie", "--conf", renamed, "--yes"});
  CHECK(other.exit.exit_code == 1);
  CHECK(other.err.find("not an address") != std::string::npos);

  auto yes = Bkctl({"updatecookie", "--conf", conf, "--yes"});
  INFO(yes.out << yes.err);
  REQUIRE(yes.exit.exit_code == 0);
  CHECK(yes.out.find("rewritten") != std::string::npos);
  BK_REQUIRE_OK(b->Restart(moved));
  auto stub = Connect(b->grpc_target());
  CHECK(ReadsBackIntact(stub.get(), 4, 0));
  // Nothing left to do now.
  b->Signal(SIGTERM);
  REQUIRE(b->WaitExit(absl::Seconds(15)).ok());
  auto again = Bkctl({"updatecookie", "--conf", conf, "--yes"});
  CHECK(again.exit.exit_code == 0);
  CHECK(again.out.find("nothing to do") != std::string::npos);
}

}  // namespace
}  // namespace bk::it
