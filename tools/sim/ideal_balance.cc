#include "tools/sim/ideal_balance.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace bk::sim {

double IdealBalanceStddev(std::vector<double> member_rates, int bookies,
                          int ensemble_size) {
  std::sort(member_rates.begin(), member_rates.end(), std::greater<double>());
  // Min-heap of bookie loads; the E smallest are popped per ledger, so the
  // members are distinct.
  std::priority_queue<double, std::vector<double>, std::greater<double>> loads;
  for (int b = 0; b < bookies; ++b) loads.push(0);
  std::vector<double> picked(ensemble_size);
  for (double r : member_rates) {
    for (int i = 0; i < ensemble_size; ++i) {
      picked[i] = loads.top() + r;
      loads.pop();
    }
    for (double l : picked) loads.push(l);
  }
  double sum = 0, sum_sq = 0;
  while (!loads.empty()) {
    sum += loads.top();
    sum_sq += loads.top() * loads.top();
    loads.pop();
  }
  const double n = bookies;
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sum_sq / n - mean * mean));
}

double BalanceLowerBoundStddev(std::vector<double> member_rates, int bookies,
                               int ensemble_size) {
  std::vector<double> slots;
  slots.reserve(member_rates.size() * ensemble_size);
  double total = 0;
  for (double r : member_rates) {
    for (int i = 0; i < ensemble_size; ++i) slots.push_back(r);
    total += r * ensemble_size;
  }
  std::sort(slots.begin(), slots.end(), std::greater<double>());
  const size_t n = static_cast<size_t>(bookies);
  slots.resize(n, 0.0);  // only the n largest can be floors
  // Find j = number of bookies pinned at their floor: the smallest j with
  // slots[j] <= (total - sum of the first j) / (n - j).
  double pinned = 0;
  size_t j = 0;
  double level = total / static_cast<double>(n);
  for (; j < n; ++j) {
    level = (total - pinned) / static_cast<double>(n - j);
    if (slots[j] <= level) break;
    pinned += slots[j];
  }
  const double mean = total / static_cast<double>(n);
  double var = 0;
  for (size_t i = 0; i < n; ++i) {
    const double y = i < j ? slots[i] : level;
    var += (y - mean) * (y - mean);
  }
  return std::sqrt(var / static_cast<double>(n));
}

}  // namespace bk::sim
