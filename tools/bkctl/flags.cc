#include "tools/bkctl/flags.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/bkctl/client_conf.h"

namespace bk::bkctl {

bool ParsedFlags::Has(absl::string_view name) const {
  return values_.contains(name);
}

const std::string& ParsedFlags::Get(absl::string_view name) const {
  static const std::string* const kEmpty = new std::string();
  auto it = values_.find(name);
  return it == values_.end() ? *kEmpty : it->second;
}

absl::StatusOr<int64_t> ParsedFlags::GetInt(absl::string_view name, int64_t min,
                                            int64_t max) const {
  int64_t value = 0;
  if (!absl::SimpleAtoi(Get(name), &value) || value < min || value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be an integer in [", min, ", ", max,
                     "], got \"", Get(name), "\""));
  }
  return value;
}

absl::StatusOr<uint64_t> ParsedFlags::GetUint64(absl::string_view name) const {
  uint64_t value = 0;
  if (!absl::SimpleAtoi(Get(name), &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be a non-negative integer, got \"",
                     Get(name), "\""));
  }
  return value;
}

absl::StatusOr<std::vector<std::string>> ParsedFlags::GetList(
    absl::string_view name) const {
  std::vector<std::string> items;
  if (Get(name).empty()) return items;
  for (absl::string_view item : absl::StrSplit(Get(name), ',')) {
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " has an empty item: \"", Get(name), "\""));
    }
    items.emplace_back(item);
  }
  return items;
}

absl::StatusOr<ParsedFlags> ParseFlags(const std::vector<std::string>& args,
                                       const std::vector<FlagSpec>& specs) {
  auto find = [&specs](absl::string_view name) -> const FlagSpec* {
    for (const FlagSpec& spec : specs) {
      if (spec.name == name) return &spec;
    }
    return nullptr;
  };
  ParsedFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg, "\""));
    }
    arg.remove_prefix(2);
    std::string name;
    std::string value;
    if (size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = std::string(arg.substr(0, eq));
      value = std::string(arg.substr(eq + 1));
    } else if (const FlagSpec* spec = find(arg); spec && spec->boolean) {
      name = std::string(arg);
      value = "true";
    } else {
      name = std::string(arg);
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      value = args[++i];
    }
    const FlagSpec* spec = find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (spec->boolean && value != "true" && value != "false") {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " takes no value, or =true / =false"));
    }
    if (!flags.values_.emplace(name, std::move(value)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " given more than once"));
    }
  }
  // --metadata-uri, when not given, from the environment: set once per
  // shell, as operators do (BookKeeper's key metadataServiceUri, in the
  // BK_<key> form the bookie reads).
  if (find(kMetadataUriFlagName) != nullptr &&
      !flags.Has(kMetadataUriFlagName)) {
    if (const char* uri = std::getenv(kMetadataUriEnv);
        uri != nullptr && uri[0] != '\0') {
      flags.values_.emplace(kMetadataUriFlagName, uri);
    }
  }
  // Then the client config file of BK_CLIENT_CONF (client_conf.h), for
  // the URI and the TLS files, each where this command has the flag and
  // it was not given.
  if (const char* conf = std::getenv(kClientConfEnv);
      conf != nullptr && conf[0] != '\0') {
    bool wanted = false;
    for (const char* name : {kMetadataUriFlagName, "tls-ca-file",
                             "tls-cert-file", "tls-key-file"}) {
      wanted = wanted || (find(name) != nullptr && !flags.Has(name));
    }
    if (wanted) {
      auto from_file = FlagsFromClientConf(conf);
      if (!from_file.ok()) return from_file.status();
      for (const auto& [name, value] : *from_file) {
        if (find(name) != nullptr && !flags.Has(name)) {
          flags.values_.emplace(name, value);
        }
      }
    }
  }
  for (const FlagSpec& spec : specs) {
    if (spec.required && !flags.Has(spec.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("missing required flag --", spec.name,
                       spec.name == kMetadataUriFlagName
                           ? absl::StrCat(" (or set ", kMetadataUriEnv,
                                          ", or metadataServiceUri in the "
                                          "client config file of ",
                                          kClientConfEnv, ")")
                           : ""));
    }
  }
  return flags;
}

std::vector<std::string> ShortFlagsToLong(
    const std::vector<std::string>& args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  for (const std::string& a : args) {
    out.push_back(
        a.size() == 2 && a[0] == '-' && a[1] != '-' ? absl::StrCat("-", a) : a);
  }
  return out;
}

std::string FlagsUsage(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const FlagSpec& spec : specs) {
    absl::StrAppend(&out, "  --", spec.name, spec.boolean ? "  " : " VALUE  ",
                    spec.help, spec.required ? " (required)" : "", "\n");
  }
  return out;
}

}  // namespace bk::bkctl
