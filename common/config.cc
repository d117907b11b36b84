#include "common/config.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace bk {

const char* OptionTypeName(OptionType t) {
  switch (t) {
    case OptionType::kInt:
      return "integer";
    case OptionType::kDouble:
      return "number";
    case OptionType::kBool:
      return "true|false";
    case OptionType::kString:
      return "string";
    case OptionType::kList:
      return "comma-separated list";
    case OptionType::kDuration:
      return "duration (ns us ms s m h)";
    case OptionType::kBytes:
      return "size (B KiB MiB GiB TiB)";
  }
  return "?";
}

namespace {

std::string Trim(absl::string_view s) {
  return std::string(absl::StripAsciiWhitespace(s));
}

}  // namespace

ConfigSchema& ConfigSchema::Add(OptionDef def) {
  if (index_.count(def.key) > 0) {
    std::fprintf(stderr, "config: key %s defined twice\n", def.key.c_str());
    std::abort();
  }
  index_[def.key] = options_.size();
  options_.push_back(std::move(def));
  return *this;
}

ConfigSchema& ConfigSchema::AddAll(const ConfigSchema& other) {
  for (const OptionDef& d : other.options()) Add(d);
  return *this;
}

const OptionDef* ConfigSchema::Find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &options_[it->second];
}

std::string ConfigSchema::Help() const {
  std::string out;
  for (const OptionDef& d : options_) {
    absl::StrAppend(&out, "  --", d.key, "=<", OptionTypeName(d.type),
                    ">  (default ",
                    d.default_value.empty() ? "\"\"" : d.default_value, ")");
    if (!d.unit.empty() && d.unit != "-") absl::StrAppend(&out, "  ", d.unit);
    if (d.has_range()) absl::StrAppend(&out, "  range ", d.min, "..", d.max);
    absl::StrAppend(&out, "\n      ", d.help, "\n");
  }
  return out;
}

namespace {

// "integer in [0, 65535] (ms)": what a malformed value should have been.
std::string Expected(const OptionDef& d) {
  std::string out = OptionTypeName(d.type);
  if (d.has_range()) absl::StrAppend(&out, " in [", d.min, ", ", d.max, "]");
  if (!d.unit.empty() && d.unit != "-")
    absl::StrAppend(&out, " (", d.unit, ")");
  return out;
}

}  // namespace

absl::StatusOr<Config> Config::Load(const ConfigSchema& schema,
                                    const ConfigSources& sources) {
  // Collect raw text per key, lowest precedence first.
  std::map<std::string, std::pair<std::string, std::string>> raw;  // text, src
  for (const OptionDef& d : schema.options()) {
    raw[d.key] = {d.default_value, "default"};
  }
  auto set = [&](const std::string& key, const std::string& value,
                 const std::string& where) -> absl::Status {
    if (schema.Find(key) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown configuration key '", key, "' (", where,
                       "); --help lists the keys"));
    }
    raw[key] = {value, where};
    return absl::OkStatus();
  };

  if (!sources.file.empty()) {
    std::ifstream in(sources.file);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("cannot read config file ", sources.file));
    }
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::string t = Trim(line);
      if (t.empty() || t[0] == '#') continue;
      const size_t eq = t.find('=');
      if (eq == std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            sources.file, ":", n, ": expected key=value, got '", t, "'"));
      }
      absl::Status s = set(Trim(t.substr(0, eq)), Trim(t.substr(eq + 1)),
                           absl::StrCat("file ", sources.file, ":", n));
      if (!s.ok()) return s;
    }
  }
  for (const std::string& e : sources.environment) {
    if (e.rfind("BK_", 0) != 0) continue;
    const size_t eq = e.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = e.substr(3, eq - 3);
    // Keys are camelCase (BK_journalDirectories): a misspelt one is an
    // error, but BK_ + an upper-case word (BK_JOBS, BK_FAULT_SEED) belongs
    // to scripts and tests, not to us, and is left alone.
    if (key.empty() || !std::islower(static_cast<unsigned char>(key[0]))) {
      continue;
    }
    absl::Status s = set(key, e.substr(eq + 1), absl::StrCat("env BK_", key));
    if (!s.ok()) return s;
  }
  for (const auto& [key, value] : sources.flags) {
    absl::Status s = set(key, value, absl::StrCat("flag --", key));
    if (!s.ok()) return s;
  }

  Config c;
  c.schema_ = &schema;
  for (const OptionDef& d : schema.options()) {
    const auto& [text, where] = raw[d.key];
    Value v;
    v.text = text;
    v.source = where.rfind("flag", 0) == 0   ? "flag"
               : where.rfind("env", 0) == 0  ? "env"
               : where.rfind("file", 0) == 0 ? "file"
                                             : "default";
    absl::Status bad;
    double numeric = 0;
    bool check_range = false;
    switch (d.type) {
      case OptionType::kInt: {
        auto r = ParseInt(text);
        if (r.ok()) {
          v.i = *r;
          numeric = *r;
          check_range = true;
        } else
          bad = r.status();
        break;
      }
      case OptionType::kDouble: {
        auto r = ParseDouble(text);
        if (r.ok()) {
          v.d = *r;
          numeric = *r;
          check_range = true;
        } else
          bad = r.status();
        break;
      }
      case OptionType::kBool: {
        auto r = ParseBool(text);
        if (r.ok())
          v.b = *r;
        else
          bad = r.status();
        break;
      }
      case OptionType::kString:
        break;
      case OptionType::kList:
        for (absl::string_view item : absl::StrSplit(text, ',')) {
          std::string t = Trim(item);
          if (!t.empty()) v.list.push_back(t);
        }
        break;
      case OptionType::kDuration: {
        auto r = ParseDurationStrict(text);
        if (r.ok())
          v.dur = *r;
        else
          bad = r.status();
        break;
      }
      case OptionType::kBytes: {
        auto r = ParseBytes(text);
        if (r.ok()) {
          v.i = static_cast<int64_t>(*r);
          numeric = static_cast<double>(*r);
          check_range = true;
        } else {
          bad = r.status();
        }
        break;
      }
    }
    if (!bad.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad value for ", d.key, " (", where,
                       "): ", bad.message(), "; expected ", Expected(d)));
    }
    if (check_range && d.has_range() && (numeric < d.min || numeric > d.max)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad value for ", d.key, " (", where, "): ", text, " is outside [",
          d.min, ", ", d.max, "]",
          d.unit.empty() || d.unit == "-" ? "" : absl::StrCat(" ", d.unit)));
    }
    c.values_[d.key] = std::move(v);
  }
  return c;
}

const Config::Value& Config::Get(const std::string& key,
                                 OptionType type) const {
  const OptionDef* d = schema_ ? schema_->Find(key) : nullptr;
  if (d == nullptr || d->type != type) {
    std::fprintf(stderr, "config: key %s read with the wrong type or unknown\n",
                 key.c_str());
    std::abort();
  }
  return values_.at(key);
}

int64_t Config::GetInt(const std::string& key) const {
  return Get(key, OptionType::kInt).i;
}
double Config::GetDouble(const std::string& key) const {
  return Get(key, OptionType::kDouble).d;
}
bool Config::GetBool(const std::string& key) const {
  return Get(key, OptionType::kBool).b;
}
const std::string& Config::GetString(const std::string& key) const {
  return Get(key, OptionType::kString).text;
}
std::vector<std::string> Config::GetList(const std::string& key) const {
  return Get(key, OptionType::kList).list;
}
absl::Duration Config::GetDuration(const std::string& key) const {
  return Get(key, OptionType::kDuration).dur;
}
uint64_t Config::GetBytes(const std::string& key) const {
  return static_cast<uint64_t>(Get(key, OptionType::kBytes).i);
}

const std::string& Config::SourceOf(const std::string& key) const {
  return values_.at(key).source;
}

std::string Config::Print() const {
  std::string out;
  for (const OptionDef& d : schema_->options()) {
    const Value& v = values_.at(d.key);
    if (v.source != "default") {
      absl::StrAppend(&out, "# ", d.key, " set by ", v.source, "\n");
    }
    absl::StrAppend(&out, d.key, "=",
                    d.secret && !v.text.empty() ? "****" : v.text, "\n");
  }
  return out;
}

}  // namespace bk
