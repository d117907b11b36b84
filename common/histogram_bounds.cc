#include "common/histogram_bounds.h"

#include <cmath>

namespace bk {
namespace {

// `v` rounded to three significant digits.
double ThreeDigits(double v) {
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(v)));
  return std::round(v * scale) / scale;
}

}  // namespace

std::vector<double> ExponentialBounds(double first, double last,
                                      int per_octave) {
  std::vector<double> bounds;
  if (!(first > 0) || !(last >= first) || per_octave < 1) return bounds;
  for (int k = 0;; ++k) {
    const double exact = first * std::exp2(static_cast<double>(k) / per_octave);
    const double b = ThreeDigits(exact);
    // Many bounds per octave could round to the same three digits: keep
    // them strictly increasing.
    if (bounds.empty() || b > bounds.back()) bounds.push_back(b);
    if (exact >= last) break;
  }
  return bounds;
}

}  // namespace bk
