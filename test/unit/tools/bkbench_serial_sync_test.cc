// SerialSyncQuantileUs (tools/bkbench/serial_sync.h): the wait of an add at
// a journal that runs one sync at a time, against cases worked by hand.

#include <catch2/catch.hpp>

#include "tools/bkbench/histogram.h"
#include "tools/bkbench/serial_sync.h"

namespace bk::bkbench {
namespace {

TEST_CASE("syncs of one length: the add waits a residual and one sync") {
  LatencyHistogram h;
  for (int i = 0; i < 1000; ++i) h.Record(10'000);
  // R uniform over (0, 10 ms), T = R + 10 ms: p99 19.9 ms, p50 15 ms.
  // The bucket holding 10 ms is 512 us wide; its midpoint stands for it.
  CHECK(SerialSyncQuantileUs(h, 0.99) == Approx(19'900).epsilon(0.03));
  CHECK(SerialSyncQuantileUs(h, 0.5) == Approx(15'000).epsilon(0.03));
}

TEST_CASE("rare long syncs dominate the wait: the inspection paradox") {
  // 99.5 % of syncs take 1 ms, 0.5 % take 100 ms. The syncs' own p99 is
  // 1 ms, but a long sync is in flight a third of the time (0.5 / 1.495):
  // worked by hand, T's p99 is about 99.5 ms.
  LatencyHistogram h;
  for (int i = 0; i < 995; ++i) h.Record(1'000);
  for (int i = 0; i < 5; ++i) h.Record(100'000);
  CHECK(h.PercentileUs(0.99) <= 1'100);
  const double p99 = SerialSyncQuantileUs(h, 0.99);
  CHECK(p99 > 90'000);
  CHECK(p99 < 105'000);
}

TEST_CASE("no syncs measured: no figure") {
  CHECK(SerialSyncQuantileUs(LatencyHistogram(), 0.99) == -1);
}

}  // namespace
}  // namespace bk::bkbench
