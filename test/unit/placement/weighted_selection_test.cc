#include "placement/weighted_selection.h"

#include <cstdint>
#include <random>
#include <vector>

#include "absl/random/random.h"
#include "catch2/catch.hpp"

namespace bk::placement {
namespace {

// Draws `n` times from `weights` and returns the count per index.
std::vector<int> CountDraws(const std::vector<double>& weights, int n,
                            uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<int> counts(weights.size(), 0);
  for (int i = 0; i < n; ++i) ++counts[PickWeighted(weights, gen)];
  return counts;
}

TEST_CASE("equal weights are drawn uniformly", "[placement]") {
  const uint64_t seed = 101;
  INFO("seed " << seed);
  constexpr int kDraws = 40000;
  std::vector<int> counts =
      CountDraws(std::vector<double>(8, 5.0), kDraws, seed);
  // Expected 5000 each, sd ~66: 10% is more than 7 sd.
  for (int c : counts) CHECK(c == Approx(kDraws / 8).epsilon(0.10));
}

TEST_CASE("all-zero disk weights are drawn uniformly", "[placement]") {
  const uint64_t seed = 102;
  INFO("seed " << seed);
  std::vector<double> weights = DiskWeights({0, 0, -1, 0}, 3);
  CHECK(weights == std::vector<double>{1, 1, 1, 1});
  std::vector<int> counts = CountDraws(weights, 20000, seed);
  for (int c : counts) CHECK(c == Approx(5000).epsilon(0.10));
}

TEST_CASE("a zero or unknown free-disk bookie weighs as the smallest non-zero",
          "[placement]") {
  const uint64_t seed = 103;
  INFO("seed " << seed);
  std::vector<double> weights = DiskWeights({0, 100, 200, 300, -1}, 3);
  CHECK(weights == std::vector<double>{100, 100, 200, 300, 100});
  std::vector<int> counts = CountDraws(weights, 80000, seed);
  // Shares 1/8, 1/8, 2/8, 3/8, 1/8 of 80000 = 10000 per 1/8 (sd ~94).
  CHECK(counts[0] == Approx(10000).epsilon(0.08));
  CHECK(counts[4] == Approx(10000).epsilon(0.08));
  CHECK(counts[0] == Approx(counts[1]).epsilon(0.08));
  CHECK(counts[3] == Approx(30000).epsilon(0.05));
}

TEST_CASE("a hot disk bookie is capped at three times the median",
          "[placement]") {
  const uint64_t seed = 104;
  INFO("seed " << seed);
  // Median 100: the 100000-byte bookie counts as 300.
  std::vector<double> weights = DiskWeights({100, 100, 100, 100, 100000}, 3);
  CHECK(weights[4] == 300);
  std::vector<int> counts = CountDraws(weights, 70000, seed);
  // Shares 1/7 each for the four, 3/7 for the hot one.
  CHECK(counts[4] == Approx(30000).epsilon(0.05));
  CHECK(static_cast<double>(counts[4]) / counts[0] == Approx(3).epsilon(0.10));
}

TEST_CASE("disk weights are uncapped when the multiple is not positive",
          "[placement]") {
  std::vector<double> weights = DiskWeights({100, 100, 100000}, -1);
  CHECK(weights[2] == 100000);
}

TEST_CASE("a draw never lands on a zero weight while others are positive",
          "[placement]") {
  std::mt19937_64 gen(105);
  for (int i = 0; i < 5000; ++i) {
    CHECK(PickWeighted({0.0, 2.0, 0.0, 1.0, 0.0}, gen) % 2 == 1);
  }
}

TEST_CASE("BP-65 roulette weight falls with MiB/s written", "[placement]") {
  CHECK(LoadRouletteWeight(-1) == 100);
  CHECK(LoadRouletteWeight(0) == 100);
  CHECK(LoadRouletteWeight(30 * kBytesPerMiB) == 70);
  // Decimal megabytes are not MiB: 50e6 B/s is ~47.68 MiB/s.
  CHECK(LoadRouletteWeight(50e6) == Approx(100 - 50e6 / 1048576.0));
  CHECK(LoadRouletteWeight(95 * kBytesPerMiB) == 10);
  CHECK(LoadRouletteWeight(100 * kBytesPerMiB) == 10);
  CHECK(LoadRouletteWeight(101 * kBytesPerMiB) == 5);
}

TEST_CASE("BP-65 leaves out unknown and over-threshold bookies",
          "[placement]") {
  BookieInfo low{.journal_io_util = 10, .write_bytes_per_second = 0};
  BookieInfo busy{.journal_io_util = 10,
                  .write_bytes_per_second = 60 * kBytesPerMiB};
  BookieInfo at_threshold{.journal_io_util = 70};
  BookieInfo hot{.journal_io_util = 70.5};
  BookieInfo unknown{};
  std::vector<const BookieInfo*> candidates = {&low, &busy,    &at_threshold,
                                               &hot, &unknown, nullptr};
  LoadWeighting w = LoadWeights(candidates, 70, 0.5);
  // 3 low-load of 6 is exactly the ratio: falls back.
  CHECK(w.fell_back);
  candidates.pop_back();  // 3 of 5 > 0.5: roulette
  w = LoadWeights(candidates, 70, 0.5);
  REQUIRE_FALSE(w.fell_back);
  CHECK(w.weights == std::vector<double>{100, 40, 100, 0, 0});
}

TEST_CASE("BP-65 falls back to uniform at exactly the low-load ratio",
          "[placement]") {
  const uint64_t seed = 106;
  INFO("seed " << seed);
  BookieInfo low{.journal_io_util = 5, .write_bytes_per_second = 0};
  BookieInfo high{.journal_io_util = 95, .write_bytes_per_second = 0};
  // 2 of 4 low-load: 2 <= 0.5 x 4.
  std::vector<const BookieInfo*> half = {&low, &high, &low, &high};
  LoadWeighting w = LoadWeights(half, 70, 0.5);
  CHECK(w.fell_back);
  std::vector<int> counts = CountDraws(w.weights, 40000, seed);
  for (int c : counts) CHECK(c == Approx(10000).epsilon(0.08));
  // 3 of 4 low-load: roulette over the low ones only.
  std::vector<const BookieInfo*> most = {&low, &high, &low, &low};
  w = LoadWeights(most, 70, 0.5);
  CHECK_FALSE(w.fell_back);
  counts = CountDraws(w.weights, 30000, seed);
  CHECK(counts[1] == 0);
  CHECK(counts[0] == Approx(10000).epsilon(0.08));
}

TEST_CASE("BP-65 roulette draws in proportion to the weights", "[placement]") {
  const uint64_t seed = 107;
  INFO("seed " << seed);
  BookieInfo idle{.journal_io_util = 1, .write_bytes_per_second = 0};
  BookieInfo half{.journal_io_util = 1,
                  .write_bytes_per_second = 50 * kBytesPerMiB};
  BookieInfo flat_out{.journal_io_util = 1,
                      .write_bytes_per_second = 200 * kBytesPerMiB};
  LoadWeighting w = LoadWeights({&idle, &half, &flat_out}, 70, 0.5);
  REQUIRE(w.weights == std::vector<double>{100, 50, 5});
  std::vector<int> counts = CountDraws(w.weights, 155000, seed);
  CHECK(counts[0] == Approx(100000).epsilon(0.03));
  CHECK(counts[1] == Approx(50000).epsilon(0.03));
  CHECK(counts[2] == Approx(5000).epsilon(0.08));
}

}  // namespace
}  // namespace bk::placement
