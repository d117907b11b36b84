// A small, strict flag parser for bkctl commands: `--key value` or
// `--key=value`; a boolean flag is `--key` alone (or `--key=true|false`).
// Unknown flags, repeated flags, missing values, missing required flags and
// positional arguments are errors (kInvalidArgument), so that a typo never
// silently runs a command with a default.

#ifndef BK_TOOLS_BKCTL_FLAGS_H_
#define BK_TOOLS_BKCTL_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::bkctl {

// Every command's --metadata-uri falls back to this environment variable
// when the flag is not given (ParseFlags).
inline constexpr char kMetadataUriFlagName[] = "metadata-uri";
inline constexpr char kMetadataUriEnv[] = "BK_metadataServiceUri";

struct FlagSpec {
  std::string name;  // without the leading "--"
  bool required = false;
  std::string help;  // one line, for usage text
  // A switch: `--name` alone means true; `--name=false` is allowed.
  bool boolean = false;
};

class ParsedFlags {
 public:
  bool Has(absl::string_view name) const;
  // The value of a flag given on the command line; "" if it was not.
  const std::string& Get(absl::string_view name) const;
  // A boolean flag's value (false when absent).
  bool GetBool(absl::string_view name) const { return Get(name) == "true"; }

  // The flag as an integer in [min, max]; kInvalidArgument naming the flag
  // otherwise. REQUIRES: Has(name).
  absl::StatusOr<int64_t> GetInt(absl::string_view name, int64_t min,
                                 int64_t max) const;
  absl::StatusOr<uint64_t> GetUint64(absl::string_view name) const;
  // Comma-separated, non-empty items; "" gives an empty list.
  absl::StatusOr<std::vector<std::string>> GetList(
      absl::string_view name) const;

 private:
  friend absl::StatusOr<ParsedFlags> ParseFlags(
      const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);
  absl::flat_hash_map<std::string, std::string> values_;
};

absl::StatusOr<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                                       const std::vector<FlagSpec>& specs);

// `-e 3` is `--e 3`: the short quorum flags (-e, -w, -a) of BookKeeper's
// shell, for commands that take them. Every other argument is unchanged.
std::vector<std::string> ShortFlagsToLong(const std::vector<std::string>& args);

// "  --name VALUE   help (required)" lines for a usage message.
std::string FlagsUsage(const std::vector<FlagSpec>& specs);

}  // namespace bk::bkctl

#endif  // BK_TOOLS_BKCTL_FLAGS_H_
