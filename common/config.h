// Configuration: typed keys with defaults, read from a key=value file,
// BK_<key> environment variables and --key=value flags.
//
// Precedence, highest first: flag > environment > file > default. Keys use
// BookKeeper's names where BookKeeper has the key (journalMaxGroupWaitMSec,
// diskUsageThreshold, ...). An unknown key or a malformed value is an error
// that names the key, where it came from, and the expected form; nothing is
// ever silently ignored.
//
// Value forms, parsed strictly:
//   kInt       decimal integer, optional sign: "42", "-1"
//   kDouble    decimal number: "0.95", "1e3"
//   kBool      true|false (also 1|0, yes|no, on|off)
//   kString    any text
//   kList      comma-separated, items trimmed, empty items dropped
//   kDuration  number + unit, one of ns us ms s m h: "2ms", "1.5s"
//   kBytes     integer, optionally with unit B KiB MiB GiB TiB: "512KiB"
//
// Thread-safety: a Config is immutable after Load and safe to share.

#ifndef BK_COMMON_CONFIG_H_
#define BK_COMMON_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace bk {

enum class OptionType {
  kInt,
  kDouble,
  kBool,
  kString,
  kList,
  kDuration,
  kBytes
};

// The value form of a type, for help and error text ("integer",
// "duration (ns us ms s m h)", ...).
const char* OptionTypeName(OptionType type);

struct OptionDef {
  std::string key;
  OptionType type = OptionType::kString;
  std::string default_value;  // in the option's own value form
  std::string help;           // one line: what the key means
  bool secret = false;        // masked by Print and never logged
  // Accepted range for kInt/kDouble/kBytes (inclusive); unset when min > max.
  double min = 1;
  double max = 0;
  // The unit of the value ("ms", "MiB", "bytes", "fraction", ...; "-" for
  // none); empty when unknown. Shown by Help and in errors.
  std::string unit;

  bool has_range() const { return min <= max; }
};

// The set of keys a program accepts. Build once at start-up.
class ConfigSchema {
 public:
  // Adds a key. REQUIRES: the key is new and the default parses.
  ConfigSchema& Add(OptionDef def);
  // Adds every key of `other`, in its order. REQUIRES: none is already here.
  ConfigSchema& AddAll(const ConfigSchema& other);
  const OptionDef* Find(const std::string& key) const;
  const std::vector<OptionDef>& options() const { return options_; }
  // Two lines per key, for --help: "--key=<type>  (default D)  unit U,
  // range A..B" and the help line.
  std::string Help() const;

 private:
  std::vector<OptionDef> options_;
  std::map<std::string, size_t> index_;
};

// Where configuration comes from. Load() consults exactly these.
struct ConfigSources {
  // key -> value from --key=value (or --key value) flags.
  std::map<std::string, std::string> flags;
  // The process environment as "NAME=value" strings (environ); only
  // BK_<known key> entries are read, other BK_ names are errors.
  std::vector<std::string> environment;
  // Path of a key=value file; empty for none.
  std::string file;
};

// The command line split into what Config needs and the rest.
struct CommandLine {
  std::map<std::string, std::string> flags;  // --key=value / --key value
  std::vector<std::string> positional;
  bool help = false;          // --help
  bool print_config = false;  // --print-config
  std::string config_file;    // --conf=FILE / --config=FILE
};

// Parses argv[1..). "--" ends flags. A flag with no value and no following
// value ("--key" at the end, or followed by another flag) is an error,
// except --help and --print-config.
absl::StatusOr<CommandLine> ParseCommandLine(int argc, const char* const* argv);

class Config {
 public:
  // Validates every source against the schema and resolves precedence.
  static absl::StatusOr<Config> Load(const ConfigSchema& schema,
                                     const ConfigSources& sources);

  // Typed getters. REQUIRES: the key is in the schema with that type (a
  // programming error otherwise: the process aborts with the key named).
  int64_t GetInt(const std::string& key) const;
  double GetDouble(const std::string& key) const;
  bool GetBool(const std::string& key) const;
  const std::string& GetString(const std::string& key) const;
  std::vector<std::string> GetList(const std::string& key) const;
  absl::Duration GetDuration(const std::string& key) const;
  uint64_t GetBytes(const std::string& key) const;

  // "flag", "env", "file" or "default".
  const std::string& SourceOf(const std::string& key) const;

  // The effective configuration in the file form Load accepts: one
  // "key=value" line per key, each value not from its default preceded by a
  // "# key set by SOURCE" comment line; secrets printed as ****.
  std::string Print() const;

 private:
  struct Value {
    std::string text;
    std::string source;
    int64_t i = 0;
    double d = 0;
    bool b = false;
    absl::Duration dur;
    std::vector<std::string> list;
  };
  const Value& Get(const std::string& key, OptionType type) const;

  const ConfigSchema* schema_ = nullptr;  // outlives the Config
  std::map<std::string, Value> values_;
};

// Parsers shared with other strict readers (exposed for tests and tools).
absl::StatusOr<int64_t> ParseInt(const std::string& text);
absl::StatusOr<double> ParseDouble(const std::string& text);
absl::StatusOr<bool> ParseBool(const std::string& text);
absl::StatusOr<absl::Duration> ParseDurationStrict(const std::string& text);
absl::StatusOr<uint64_t> ParseBytes(const std::string& text);

}  // namespace bk

#endif  // BK_COMMON_CONFIG_H_
