// ExponentialBounds: the bucket bounds of the latency histograms.

#include "common/histogram_bounds.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

namespace bk {
namespace {

TEST_CASE("histogram bounds double every four steps and reach the last",
          "[common]") {
  const std::vector<double> b = ExponentialBounds(50e-6, 20, 4);
  REQUIRE(b.size() >= 2);
  CHECK(b.front() == Approx(50e-6));
  CHECK(b.back() >= 20);
  // The one before the last is still short of it: no bound is wasted.
  CHECK(b[b.size() - 2] < 20);
  // log2(20 / 50e-6) = 18.6 octaves, four bounds each, and the first.
  CHECK(b.size() == 76);
  for (size_t i = 1; i < b.size(); ++i) {
    INFO("bound " << i << ": " << b[i - 1] << " -> " << b[i]);
    CHECK(b[i] > b[i - 1]);
    // Each step is 2^(1/4), give or take the rounding to three digits.
    CHECK(b[i] / b[i - 1] == Approx(std::exp2(0.25)).epsilon(0.01));
    if (i >= 4) CHECK(b[i] / b[i - 4] == Approx(2).epsilon(0.01));
  }
}

TEST_CASE("histogram bounds are rounded to three significant digits",
          "[common]") {
  const std::vector<double> b = ExponentialBounds(100e-6, 10, 4);
  // 100 us * 2^(k/4): 100, 119, 141, 168, then 200 us.
  REQUIRE(b.size() >= 5);
  CHECK(b[0] == 0.0001);
  CHECK(b[1] == 0.000119);
  CHECK(b[2] == 0.000141);
  CHECK(b[3] == 0.000168);
  CHECK(b[4] == 0.0002);
  for (double v : b) {
    const double digits = v * std::pow(10.0, 2 - std::floor(std::log10(v)));
    CHECK(digits == Approx(std::round(digits)).margin(1e-6));
  }
}

TEST_CASE("histogram bounds of one bound, and of bad arguments", "[common]") {
  CHECK(ExponentialBounds(1, 1, 4) == std::vector<double>{1});
  CHECK(ExponentialBounds(1, 2, 1) == std::vector<double>{1, 2});
  CHECK(ExponentialBounds(0, 1, 4).empty());
  CHECK(ExponentialBounds(2, 1, 4).empty());
  CHECK(ExponentialBounds(1, 2, 0).empty());
}

}  // namespace
}  // namespace bk
