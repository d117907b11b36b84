// bkbench's latency probes (latency_probes.h): they measure what they say
// (a sample per fdatasync, a sample per round trip), clean up after
// themselves and report a directory they cannot write to. No timing is
// asserted.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "test/support/poll_until.h"
#include "test/support/temp_dir.h"
#include "tools/bkbench/latency_probes.h"

namespace bk::bkbench {
namespace {

TEST_CASE("the loopback probe records one sample per measured round trip",
          "[bkbench]") {
  auto h = LoopbackRtt(300);
  REQUIRE(h.ok());
  CHECK(h->count() == 300);
  CHECK(h->PercentileUs(0.5) <= h->PercentileUs(0.99));
}

TEST_CASE("the fsync probe samples while it runs and removes its file",
          "[bkbench]") {
  bk::testing::TempDir dir;
  auto probe = FsyncProbe::Start(dir.path(), absl::Milliseconds(1));
  REQUIRE(probe.ok());
  auto files = [&] {
    return std::distance(std::filesystem::directory_iterator(dir.path()),
                         std::filesystem::directory_iterator());
  };
  CHECK(files() == 1);
  // Three blocks written (each at its own offset, each synced before the
  // next) before stopping; Stop() joins the thread, so what it returns is
  // final.
  const std::string file =
      dir.Sub("bkbench-fsync-probe." + std::to_string(getpid()));
  absl::Status error;
  LatencyHistogram h;
  REQUIRE(bk::testing::PollUntil(
      [&] { return std::filesystem::file_size(file) >= 3 * 4096; },
      absl::Seconds(30)));
  h = (*probe)->Stop(&error);
  CHECK(error.ok());
  CHECK(h.count() >= 3);
  CHECK(files() == 0);
}

TEST_CASE("the fsync probe refuses a directory it cannot create a file in",
          "[bkbench]") {
  auto probe = FsyncProbe::Start("/nonexistent/bkbench-probe-dir",
                                 absl::Milliseconds(1));
  REQUIRE_FALSE(probe.ok());
  CHECK(probe.status().message().find("/nonexistent/bkbench-probe-dir") !=
        std::string::npos);
}

}  // namespace
}  // namespace bk::bkbench
