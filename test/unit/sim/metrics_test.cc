#include "tools/sim/metrics.h"

#include <cmath>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/weighted_selection.h"

namespace bk::sim {
namespace {

constexpr double kMiB = placement::kBytesPerMiB;

// One 1 s interval after no warm-up, `mib_per_s[b]` written by bookie b.
PolicySummary OneInterval(const std::vector<bool>& writable,
                          const std::vector<int>& device,
                          const std::vector<double>& mib_per_s) {
  Metrics m(writable, device, /*interval_s=*/1, /*herd_window_s=*/1,
            /*warmup_s=*/0);
  std::vector<double> bytes;
  for (double v : mib_per_s) bytes.push_back(v * kMiB);
  m.AddWritten(bytes);
  m.CloseInterval(1);
  return m.Finish();
}

TEST_CASE("a disk shared by bookies carries their sum in the disk figures",
          "[sim]") {
  // Bookies 0-2 share disk 0; bookies 3 and 4 have disks 1 and 2.
  const PolicySummary s = OneInterval({true, true, true, true, true},
                                      {0, 0, 0, 1, 2}, {2, 4, 6, 12, 0});
  // Per bookie: {2, 4, 6, 12, 0}, mean 4.8, variance 16.96.
  CHECK(s.throughput_stddev == Approx(std::sqrt(16.96)));
  CHECK(s.throughput_range == Approx(12));
  CHECK(s.top10_throughput == Approx(4.8));
  // Per disk: {12, 12, 0}, mean 8, variance 32.
  CHECK(s.disk_throughput_stddev == Approx(std::sqrt(32.0)));
  CHECK(s.disk_throughput_range == Approx(12));
  CHECK(s.disk_top10_throughput == Approx(8));
}

TEST_CASE(
    "read-only bookies count on neither figure, nor does a disk of only "
    "read-only bookies",
    "[sim]") {
  // Bookie 1 (disk 0) and bookie 3 (disk 2, alone) are read-only.
  const PolicySummary s =
      OneInterval({true, false, true, false}, {0, 0, 1, 2}, {3, 50, 5, 50});
  CHECK(s.throughput_stddev == Approx(1));  // {3, 5}
  CHECK(s.throughput_range == Approx(2));
  CHECK(s.disk_throughput_stddev == Approx(1));  // disks {3, 5}
  CHECK(s.disk_throughput_range == Approx(2));
}

TEST_CASE("without a device map every bookie is its own disk", "[sim]") {
  const PolicySummary s =
      OneInterval({true, true, true}, /*device=*/{}, {1, 2, 6});
  CHECK(s.disk_throughput_stddev == Approx(s.throughput_stddev));
  CHECK(s.disk_throughput_range == Approx(5));
  CHECK(s.disk_top10_throughput == Approx(3));
}

TEST_CASE("the summary holds each disk figure's peak over the intervals",
          "[sim]") {
  Metrics m({true, true, true}, {0, 0, 1}, 1, 1, 0);
  m.AddWritten({1 * kMiB, 1 * kMiB, 2 * kMiB});  // disks {2, 2}
  m.CloseInterval(1);
  m.AddWritten({4 * kMiB, 4 * kMiB, 0});  // disks {8, 0}
  m.CloseInterval(2);
  const PolicySummary s = m.Finish();
  REQUIRE(s.series.size() == 2);
  CHECK(s.series[0].disk_stddev == Approx(0).margin(1e-12));
  CHECK(s.series[1].disk_stddev == Approx(4));
  CHECK(s.disk_throughput_stddev == Approx(4));
  CHECK(s.disk_throughput_range == Approx(8));
}

}  // namespace
}  // namespace bk::sim
