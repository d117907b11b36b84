// Strict value parsers and the command-line splitter for config.h.

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/config.h"

namespace bk {

absl::StatusOr<int64_t> ParseInt(const std::string& text) {
  int64_t v;
  if (text.empty() || !absl::SimpleAtoi(text, &v) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not an integer"));
  }
  return v;
}

absl::StatusOr<double> ParseDouble(const std::string& text) {
  double v;
  if (text.empty() || !absl::SimpleAtod(text, &v) || !std::isfinite(v) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a finite number"));
  }
  return v;
}

absl::StatusOr<bool> ParseBool(const std::string& text) {
  const std::string t = absl::AsciiStrToLower(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a boolean (true or false)"));
}

absl::StatusOr<absl::Duration> ParseDurationStrict(const std::string& text) {
  // absl::ParseDuration accepts "0" without a unit and sequences like
  // "1h30m"; we take exactly one number and one unit.
  size_t i = 0;
  while (i < text.size() && (absl::ascii_isdigit(text[i]) || text[i] == '.'))
    ++i;
  const std::string number = text.substr(0, i);
  const std::string unit = text.substr(i);
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is not a duration (a number and one of ns, us, ms, s, "
                     "m, h, e.g. 250ms)"));
  };
  double v;
  if (number.empty() || !absl::SimpleAtod(number, &v)) return bad();
  if (unit == "ns") return absl::Nanoseconds(v);
  if (unit == "us") return absl::Microseconds(v);
  if (unit == "ms") return absl::Milliseconds(v);
  if (unit == "s") return absl::Seconds(v);
  if (unit == "m") return absl::Minutes(v);
  if (unit == "h") return absl::Hours(v);
  return bad();
}

absl::StatusOr<uint64_t> ParseBytes(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && absl::ascii_isdigit(text[i])) ++i;
  const std::string number = text.substr(0, i);
  const std::string unit = text.substr(i);
  uint64_t v;
  if (number.empty() || !absl::SimpleAtoi(number, &v)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text,
        "' is not a byte size (an integer, optionally with B, KiB, "
        "MiB, GiB or TiB, e.g. 512KiB)"));
  }
  int shift;
  if (unit.empty() || unit == "B") {
    shift = 0;
  } else if (unit == "KiB") {
    shift = 10;
  } else if (unit == "MiB") {
    shift = 20;
  } else if (unit == "GiB") {
    shift = 30;
  } else if (unit == "TiB") {
    shift = 40;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "' has unit '", unit,
        "'; byte sizes take B, KiB, MiB, GiB or TiB (powers of 1024)"));
  }
  if (shift > 0 && v > (UINT64_MAX >> shift)) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' overflows"));
  }
  return v << shift;
}

absl::StatusOr<CommandLine> ParseCommandLine(int argc,
                                             const char* const* argv) {
  CommandLine out;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (flags_done || !absl::StartsWith(arg, "--")) {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    std::string key = arg.substr(2), value;
    const size_t eq = key.find('=');
    bool has_value = eq != std::string::npos;
    if (has_value) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    }
    if (key.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed flag '", arg, "'"));
    }
    if (!has_value && (key == "help" || key == "print-config")) {
      (key == "help" ? out.help : out.print_config) = true;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc || absl::StartsWith(argv[i + 1], "--")) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", key, " needs a value (--", key, "=VALUE)"));
      }
      value = argv[++i];
    }
    if (key == "conf" || key == "config") {
      out.config_file = value;
      continue;
    }
    if (out.flags.count(key) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", key, " given twice"));
    }
    out.flags[key] = value;
  }
  return out;
}

}  // namespace bk
