#include "bookie/service/windowed_latency.h"

#include <catch2/catch.hpp>
#include <random>

namespace bk::bookie {
namespace {

TEST_CASE("windowed latency with no samples is unknown", "[bookie][latency]") {
  WindowedLatency w(3);
  CHECK(w.Quantile(0.99, 100) == -1);
}

TEST_CASE("windowed latency p99 is within a bucket of the true p99",
          "[bookie][latency]") {
  const uint32_t seed = 7;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::exponential_distribution<double> d(1.0 / 0.002);  // mean 2 ms
  std::vector<double> all;
  WindowedLatency w(3);
  for (int i = 0; i < 30000; ++i) {
    const double v = d(rng);
    all.push_back(v);
    w.Record(v, 100 + i / 10000);  // seconds 100, 101, 102
  }
  std::sort(all.begin(), all.end());
  const double truth = all[all.size() * 99 / 100];
  const double got = w.Quantile(0.99, 102);
  CHECK(got >= truth);
  CHECK(got <= truth * WindowedLatency::kGrowth * 1.0001);
}

TEST_CASE("windowed latency forgets samples older than the window",
          "[bookie][latency]") {
  WindowedLatency w(2);
  for (int i = 0; i < 100; ++i) w.Record(1.0, 10);  // slow, at second 10
  for (int i = 0; i < 100; ++i) w.Record(0.001, 12);
  // At second 12 a 2-second window covers seconds 11 and 12 only.
  CHECK(w.Quantile(0.99, 12) < 0.0015);
  // At second 11 it covered second 10 too.
  CHECK(w.Quantile(0.99, 11) >= 1.0);
}

TEST_CASE("a reused slot starts from zero", "[bookie][latency]") {
  WindowedLatency w(1);  // two slots: seconds 0 and 2 share one
  for (int i = 0; i < 50; ++i) w.Record(2.0, 0);
  w.Record(0.0001, 2);
  CHECK(w.Quantile(1.0, 2) < 0.001);
}

}  // namespace
}  // namespace bk::bookie
