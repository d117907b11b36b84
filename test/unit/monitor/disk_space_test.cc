#include "monitor/disk_space.h"

#include <catch2/catch.hpp>
#include <map>

#include "test/unit/monitor/fake_host.h"

namespace bk::monitor {
namespace {

TEST_CASE("ledger dirs on one filesystem count it once", "[monitor]") {
  testing::FakeHost host;
  std::string a = host.MakeDir("ledger0");
  std::string b = host.MakeDir("ledger1");
  auto one = ProbeFilesystem(a);
  REQUIRE(one.ok());
  auto both = SumDiskSpace({a, b}, ProbeFilesystem);
  REQUIRE(both.ok());
  CHECK(both->total_bytes == one->total_bytes);
  CHECK(both->total_bytes > 0);
  CHECK(both->free_bytes <= both->total_bytes);
}

TEST_CASE("ledger dirs on distinct filesystems are summed", "[monitor]") {
  const std::map<std::string, FsUsage> fs = {
      {"/disk1/a", {1, 100, 1000}},
      {"/disk1/b", {1, 100, 1000}},
      {"/disk2/a", {2, 50, 500}},
  };
  FsProbe probe = [&](const std::string& dir) -> absl::StatusOr<FsUsage> {
    return fs.at(dir);
  };
  auto sum = SumDiskSpace({"/disk1/a", "/disk1/b", "/disk2/a"}, probe);
  REQUIRE(sum.ok());
  CHECK(sum->free_bytes == 150);
  CHECK(sum->total_bytes == 1500);
}

TEST_CASE("a ledger dir that does not exist is an error", "[monitor]") {
  testing::FakeHost host;
  auto sum = SumDiskSpace({host.root().string() + "/missing"}, ProbeFilesystem);
  CHECK(sum.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace bk::monitor
