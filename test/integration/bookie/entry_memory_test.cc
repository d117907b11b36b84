// A real bookie reserves its write cache's worth of memory for received
// entries at start and, unless writeCachePreTouch=false, touches it then:
// its resident memory holds the cache before the first add.

#include "absl/strings/match.h"
#include "test/integration/bookie/bookie_it_util.h"

namespace bk::it {
namespace {

TEST_CASE(
    "a bookie touches its write cache's entry memory at start unless "
    "told not to",
    "[integration][bookie]") {
  const std::string uri = FreshZkUri("entry-memory");
  // 64 MiB: 256 blocks of 256 KiB, well above the two processes' other
  // differences in resident memory.
  const std::map<std::string, std::string> cache = {
      {"dbStorage_writeCacheMaxSizeMb", "64"}};
  TempDir touched_dir, lazy_dir;
  auto touched =
      StartBookie(BookieOptions(touched_dir, "bk-touch", uri, cache));
  auto lazy_flags = cache;
  lazy_flags["writeCachePreTouch"] = "false";
  auto lazy = StartBookie(BookieOptions(lazy_dir, "bk-lazy", uri, lazy_flags));

  const std::string touched_log = touched->Log();
  const std::string lazy_log = lazy->Log();
  INFO(touched_log);
  INFO(lazy_log);
  CHECK(absl::StrContains(
      touched_log, "entry memory: 256 blocks of 256 KiB reserved and touched"));
  CHECK(absl::StrContains(lazy_log,
                          "entry memory: 256 blocks of 256 KiB reserved in"));

  const int64_t touched_rss = ResidentBytes(touched->pid());
  const int64_t lazy_rss = ResidentBytes(lazy->pid());
  INFO("resident: touched " << touched_rss << " lazy " << lazy_rss);
  REQUIRE(touched_rss > 0);
  REQUIRE(lazy_rss > 0);
  CHECK(touched_rss - lazy_rss >= int64_t{48} << 20);
}

}  // namespace
}  // namespace bk::it
