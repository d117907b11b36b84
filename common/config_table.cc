#include "common/config_table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace bk::config_internal {

void TableError(const std::string& key, const std::string& why) {
  std::fprintf(stderr, "config table: key %s %s\n", key.c_str(), why.c_str());
  std::abort();
}

std::string FormatDouble(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::string text = absl::StrFormat("%.*g", precision, v);
    double back;
    if (absl::SimpleAtod(text, &back) && back == v) return text;
  }
  return absl::StrFormat("%.17g", v);
}

std::string FormatBytes(uint64_t v) {
  static constexpr struct {
    int shift;
    const char* unit;
  } kUnits[] = {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  if (v != 0) {
    for (const auto& u : kUnits) {
      if (v % (uint64_t{1} << u.shift) == 0) {
        return absl::StrCat(v >> u.shift, u.unit);
      }
    }
  }
  return absl::StrCat(v);
}

int64_t WholeUnits(const std::string& key, absl::Duration d,
                   absl::Duration unit) {
  absl::Duration rem;
  const int64_t n = absl::IDivDuration(d, unit, &rem);
  if (rem != absl::ZeroDuration()) {
    TableError(key, absl::StrCat("has a default of ", absl::FormatDuration(d),
                                 ", not a whole number of ",
                                 absl::FormatDuration(unit)));
  }
  return n;
}

void CheckIntRange(const std::string& key, Range range, double lo, double hi) {
  if (range.min > range.max) {
    TableError(key, "is an integer key without a range");
  }
  if (range.min < lo || range.max > hi) {
    TableError(key, absl::StrCat("has range [", range.min, ", ", range.max,
                                 "] beyond its field's [", lo, ", ", hi, "]"));
  }
}

void CheckDefaultInRange(const OptionDef& def) {
  if (!def.has_range()) return;
  double v = 0;
  bool parsed = false;
  switch (def.type) {
    case OptionType::kInt:
    case OptionType::kDouble:
      parsed = absl::SimpleAtod(def.default_value, &v);
      break;
    case OptionType::kBytes: {
      auto bytes = ParseBytes(def.default_value);
      parsed = bytes.ok();
      if (parsed) v = static_cast<double>(*bytes);
      break;
    }
    default:
      return;
  }
  if (!parsed || v < def.min || v > def.max) {
    TableError(def.key,
               absl::StrCat("has default '", def.default_value, "' outside [",
                            def.min, ", ", def.max, "]"));
  }
}

}  // namespace bk::config_internal
