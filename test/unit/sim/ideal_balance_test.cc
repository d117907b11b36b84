#include "tools/sim/ideal_balance.h"

#include <vector>

#include "catch2/catch.hpp"

namespace bk::sim {
namespace {

TEST_CASE("equal ledgers that fill every bookie evenly have no spread",
          "[sim]") {
  // 10 ledgers x 2 members over 4 bookies: 5 slots each.
  std::vector<double> rates(10, 1.0);
  CHECK(IdealBalanceStddev(rates, 4, 2) == Approx(0).margin(1e-12));
  CHECK(BalanceLowerBoundStddev(rates, 4, 2) == Approx(0).margin(1e-12));
}

TEST_CASE("one huge ledger sets the spread however the rest is placed",
          "[sim]") {
  // A 10 MiB/s ledger on 2 of 4 bookies, 4 ledgers of 1 (8 slots): the best
  // is {10, 10, 4, 4}, mean 7, stddev 3.
  std::vector<double> rates = {10, 1, 1, 1, 1};
  CHECK(IdealBalanceStddev(rates, 4, 2) == Approx(3));
  CHECK(BalanceLowerBoundStddev(rates, 4, 2) == Approx(3));
}

TEST_CASE("the lower bound never exceeds the greedy balance", "[sim]") {
  std::vector<double> rates;
  for (int i = 1; i <= 200; ++i) rates.push_back(100.0 / (i * i % 37 + 1));
  rates.push_back(400);  // above the mean load: pins its bookies
  const double greedy = IdealBalanceStddev(rates, 50, 3);
  const double bound = BalanceLowerBoundStddev(rates, 50, 3);
  CHECK(bound <= greedy + 1e-9);
  CHECK(bound > 0);
}

}  // namespace
}  // namespace bk::sim
