// ConfigTable<Options>: a program's configuration keys, each bound once to
// the field of its Options struct that it sets, with the unit the key is
// written in, its accepted range and a one-line meaning.
//
// A key's default is not written in the table: it is the field's value in a
// default-constructed Options, written in the key's unit. So the defaults
// that code and tests get from the struct and the ones an operator gets from
// the configuration are the same values by construction. From the table
// come the ConfigSchema that Config::Load checks every source against (and
// that --help, --print-config and the generated docs print: config_doc.h),
// and Apply(), which sets every bound field from a loaded Config.
//
//   ConfigTable<DaemonOptions> t;
//   t.Millis("journalMaxGroupWaitMSec", BK_FIELD(store.journal.max_group_wait),
//            {0, 10000}, "longest wait before a journal group is synced");
//
// declares an integer key in ms, accepted in [0, 10000], whose default is
// "2" because JournalOptions::max_group_wait is 2 ms; Apply sets the field
// to absl::Milliseconds(value).
//
// Bindings, by how the key is written:
//   Value        the field as it is: bool, an integer type, double,
//                std::string, std::vector<std::string> (comma-separated)
//   Millis       an absl::Duration field; the key an integer of ms
//   Seconds      an absl::Duration field; the key an integer of seconds
//   SecondsReal  an absl::Duration field; the key a number of seconds
//   MiB          an integer field of bytes; the key an integer of MiB
//   Bytes        an integer field of bytes; the key a size ("512KiB")
//   Choice       an enum field; the key the name of one of its values
//   Custom       a key with no field of its own (an alias that sets another
//                key's field); its default is given with it
// Every integer key has a range, inside its field's type. A binding that
// breaks a rule (no range, a default outside its range or not expressible in
// its unit, a key defined twice) aborts when the table is built: a
// programming error, caught by any test that builds the table.
//
// Thread-safety: build once (a function-local static), then read-only.

#ifndef BK_COMMON_CONFIG_TABLE_H_
#define BK_COMMON_CONFIG_TABLE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/config.h"

// The field at `path` of an Options object, as a generic accessor:
// BK_FIELD(store.journal.dirs).
#define BK_FIELD(path) \
  [](auto& o) -> auto& { return o.path; }

namespace bk {

// Accepted values, inclusive, in the key's unit. Unset when min > max.
struct Range {
  double min = 1;
  double max = 0;
};

namespace config_internal {

// Aborts naming the key: the table is wrong, not the configuration.
[[noreturn]] void TableError(const std::string& key, const std::string& why);
// The shortest text that parses back to exactly `v` ("0.95", "1800").
std::string FormatDouble(double v);
// A byte count in the largest binary unit that divides it ("512KiB",
// "1GiB"), else plain ("1000000").
std::string FormatBytes(uint64_t v);
// A Duration as a whole number of `unit`; aborts naming `key` otherwise.
int64_t WholeUnits(const std::string& key, absl::Duration d,
                   absl::Duration unit);
// Checks the range of an integer key against [lo, hi] (its field's type).
void CheckIntRange(const std::string& key, Range range, double lo, double hi);
// Aborts unless the default's numeric value lies within the key's range.
void CheckDefaultInRange(const OptionDef& def);

template <typename>
inline constexpr bool kUnsupported = false;

}  // namespace config_internal

template <typename Options>
class ConfigTable {
 public:
  using ApplyFn = std::function<absl::Status(const Config&, Options&)>;
  using FormatFn = std::function<std::string(const Options&)>;
  // The type of the field a BK_FIELD accessor reaches.
  template <typename F>
  using FieldType = std::remove_cvref_t<decltype(std::declval<F>()(
      std::declval<Options&>()))>;

  template <typename F>
  ConfigTable& Value(const char* key, F field, const char* unit, Range range,
                     const char* help) {
    using T = FieldType<F>;
    const std::string k = key;
    if constexpr (std::is_same_v<T, bool>) {
      return Bind(
          {k, OptionType::kBool, "", help, false, range.min, range.max, unit},
          [k, field](const Config& c, Options& o) {
            field(o) = c.GetBool(k);
            return absl::OkStatus();
          },
          [field](const Options& o) {
            return std::string(field(o) ? "true" : "false");
          });
    } else if constexpr (std::is_integral_v<T>) {
      // Explicit: clang's -Wimplicit-const-int-float-conversion rejects
      // int64's max rounded to a double.
      config_internal::CheckIntRange(
          k, range, static_cast<double>(std::numeric_limits<T>::lowest()),
          static_cast<double>(std::numeric_limits<T>::max()));
      return Bind(
          {k, OptionType::kInt, "", help, false, range.min, range.max, unit},
          [k, field](const Config& c, Options& o) {
            field(o) = static_cast<T>(c.GetInt(k));
            return absl::OkStatus();
          },
          [field](const Options& o) { return absl::StrCat(field(o)); });
    } else if constexpr (std::is_floating_point_v<T>) {
      return Bind(
          {k, OptionType::kDouble, "", help, false, range.min, range.max, unit},
          [k, field](const Config& c, Options& o) {
            field(o) = static_cast<T>(c.GetDouble(k));
            return absl::OkStatus();
          },
          [field](const Options& o) {
            return config_internal::FormatDouble(field(o));
          });
    } else if constexpr (std::is_same_v<T, std::string>) {
      return Bind(
          {k, OptionType::kString, "", help, false, 1, 0, unit},
          [k, field](const Config& c, Options& o) {
            field(o) = c.GetString(k);
            return absl::OkStatus();
          },
          [field](const Options& o) { return field(o); });
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      return Bind(
          {k, OptionType::kList, "", help, false, 1, 0, unit},
          [k, field](const Config& c, Options& o) {
            field(o) = c.GetList(k);
            return absl::OkStatus();
          },
          [field](const Options& o) { return absl::StrJoin(field(o), ","); });
    } else {
      static_assert(config_internal::kUnsupported<T>,
                    "Value binds bool, integers, double, string, list");
    }
  }

  template <typename F>
  ConfigTable& Micros(const char* key, F field, Range range, const char* help) {
    return Duration(key, field, absl::Microseconds(1), "us", range, help);
  }
  template <typename F>
  ConfigTable& Millis(const char* key, F field, Range range, const char* help) {
    return Duration(key, field, absl::Milliseconds(1), "ms", range, help);
  }
  template <typename F>
  ConfigTable& Seconds(const char* key, F field, Range range,
                       const char* help) {
    return Duration(key, field, absl::Seconds(1), "s", range, help);
  }

  template <typename F>
  ConfigTable& SecondsReal(const char* key, F field, Range range,
                           const char* help) {
    static_assert(std::is_same_v<FieldType<F>, absl::Duration>);
    const std::string k = key;
    return Bind(
        {k, OptionType::kDouble, "", help, false, range.min, range.max, "s"},
        [k, field](const Config& c, Options& o) {
          field(o) = absl::Milliseconds(c.GetDouble(k) * 1000);
          return absl::OkStatus();
        },
        [field](const Options& o) {
          return config_internal::FormatDouble(absl::ToDoubleSeconds(field(o)));
        });
  }

  template <typename F>
  ConfigTable& MiB(const char* key, F field, Range range, const char* help) {
    using T = FieldType<F>;
    static_assert(std::is_integral_v<T>);
    const std::string k = key;
    config_internal::CheckIntRange(
        k, range, 0, static_cast<double>(std::numeric_limits<T>::max() >> 20));
    return Bind(
        {k, OptionType::kInt, "", help, false, range.min, range.max, "MiB"},
        [k, field](const Config& c, Options& o) {
          field(o) = static_cast<T>(static_cast<uint64_t>(c.GetInt(k)) << 20);
          return absl::OkStatus();
        },
        [k, field](const Options& o) {
          const uint64_t bytes = static_cast<uint64_t>(field(o));
          if (bytes % (uint64_t{1} << 20) != 0) {
            config_internal::TableError(k, "is not a whole number of MiB");
          }
          return absl::StrCat(bytes >> 20);
        });
  }

  template <typename F>
  ConfigTable& Bytes(const char* key, F field, const char* unit, Range range,
                     const char* help) {
    using T = FieldType<F>;
    static_assert(std::is_integral_v<T>);
    const std::string k = key;
    return Bind(
        {k, OptionType::kBytes, "", help, false, range.min, range.max, unit},
        [k, field](const Config& c, Options& o) {
          field(o) = static_cast<T>(c.GetBytes(k));
          return absl::OkStatus();
        },
        [field](const Options& o) {
          return config_internal::FormatBytes(static_cast<uint64_t>(field(o)));
        });
  }

  // `name(value)` gives the key's text for each of `values`; any other text
  // is an error naming the key and the names.
  template <typename F, typename NameFn>
  ConfigTable& Choice(const char* key, F field,
                      std::vector<FieldType<F>> values, NameFn name,
                      const char* help) {
    using T = FieldType<F>;
    std::vector<std::string> names;
    for (const T& v : values) names.emplace_back(name(v));
    const std::string k = key;
    return Bind(
        {k, OptionType::kString, "", help, false, 1, 0,
         absl::StrJoin(names, "|")},
        [k, field, values, name, names](const Config& c, Options& o) {
          const std::string& text = c.GetString(k);
          for (const T& v : values) {
            if (text == name(v)) {
              field(o) = v;
              return absl::OkStatus();
            }
          }
          return absl::InvalidArgumentError(absl::StrCat(
              "bad value for ", k, " (", c.SourceOf(k), "): '", text,
              "' is not one of ", absl::StrJoin(names, ", ")));
        },
        [field, name](const Options& o) {
          return std::string(name(field(o)));
        });
  }

  // `def` names the key, its type, default, unit, range and meaning; `apply`
  // runs in table order, so it may read fields set by keys defined before it.
  ConfigTable& Custom(OptionDef def, ApplyFn apply) {
    config_internal::CheckDefaultInRange(def);
    schema_.Add(def);
    keys_.push_back({std::move(apply), nullptr});
    return *this;
  }

  // Every key of the table, with its default, for Config::Load and docs.
  const ConfigSchema& schema() const { return schema_; }

  // Sets every bound field of *options from `config`, in table order.
  // REQUIRES: `config` was loaded with schema() or a schema holding it.
  // Errors (a Choice or Custom key's value) name the key.
  absl::Status Apply(const Config& config, Options* options) const {
    for (const BoundKey& b : keys_) {
      if (absl::Status s = b.apply(config, *options); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Each bound field of `options` in its key's value form, in table order
  // (Custom keys excluded): what a config file would say to get `options`.
  std::vector<std::pair<std::string, std::string>> Values(
      const Options& options) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i].format) {
        out.emplace_back(schema_.options()[i].key, keys_[i].format(options));
      }
    }
    return out;
  }

 private:
  struct BoundKey {
    ApplyFn apply;
    FormatFn format;  // null for Custom keys
  };

  template <typename F>
  ConfigTable& Duration(const char* key, F field, absl::Duration unit,
                        const char* unit_name, Range range, const char* help) {
    static_assert(std::is_same_v<FieldType<F>, absl::Duration>);
    const std::string k = key;
    config_internal::CheckIntRange(
        k, range, static_cast<double>(std::numeric_limits<int64_t>::lowest()),
        static_cast<double>(std::numeric_limits<int64_t>::max()));
    return Bind(
        {k, OptionType::kInt, "", help, false, range.min, range.max, unit_name},
        [k, field, unit](const Config& c, Options& o) {
          field(o) = c.GetInt(k) * unit;
          return absl::OkStatus();
        },
        [k, field, unit](const Options& o) {
          return absl::StrCat(config_internal::WholeUnits(k, field(o), unit));
        });
  }

  ConfigTable& Bind(OptionDef def, ApplyFn apply, FormatFn format) {
    static const Options* const defaults = new Options();
    def.default_value = format(*defaults);
    config_internal::CheckDefaultInRange(def);
    schema_.Add(std::move(def));
    keys_.push_back({std::move(apply), std::move(format)});
    return *this;
  }

  ConfigSchema schema_;
  std::vector<BoundKey> keys_;  // parallel to schema_.options()
};

}  // namespace bk

#endif  // BK_COMMON_CONFIG_TABLE_H_
