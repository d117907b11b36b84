#include "tools/bkbench/scenario_spec.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace bk::bkbench {
namespace {

// An absent key, or one given with no value.
bool Present(const YAML::Node& n) { return n && !n.IsNull(); }

absl::Status Bad(const std::string& key, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": ", what));
}

// Reads the keys of one YAML map. Every Get marks its key as known; Finish
// rejects any key never asked for, so a typo is an error, not a default.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string path)
      : node_(node), path_(std::move(path)) {
    if (Present(node_) && !node_.IsMap()) {
      error_ = Bad(path_.empty() ? "scenario" : path_, "expected a map");
    }
  }

  template <typename T>
  void Get(const std::string& key, T* out) {
    known_.insert(key);
    if (!error_.ok() || !Present(node_)) return;
    const YAML::Node v = node_[key];
    if (!v) return;
    if (!v.IsScalar() || !YAML::convert<T>::decode(v, *out)) {
      error_ = Bad(Key(key), absl::StrCat("expected ", TypeName<T>()));
    }
  }

  void GetList(const std::string& key, std::vector<std::string>* out) {
    const YAML::Node v = Child(key);
    if (!error_.ok() || !Present(v)) return;
    if (!v.IsSequence()) {
      error_ = Bad(Key(key), "expected a list");
      return;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      std::string s;
      if (!v[i].IsScalar() || !YAML::convert<std::string>::decode(v[i], s)) {
        error_ = Bad(absl::StrCat(Key(key), "[", i, "]"), "expected a string");
        return;
      }
      out->push_back(s);
    }
  }

  YAML::Node Child(const std::string& key) {
    known_.insert(key);
    return error_.ok() && Present(node_) ? node_[key] : YAML::Node();
  }

  std::string Key(const std::string& key) const {
    return path_.empty() ? key : absl::StrCat(path_, ".", key);
  }

  absl::Status Finish() {
    if (!error_.ok() || !Present(node_)) return error_;
    for (const auto& entry : node_) {
      const std::string key = entry.first.as<std::string>();
      if (!known_.contains(key)) return Bad(Key(key), "unknown key");
    }
    return absl::OkStatus();
  }

 private:
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "a boolean";
    if constexpr (std::is_integral_v<T>) return "an integer";
    if constexpr (std::is_floating_point_v<T>) return "a number";
    return "a string";
  }

  YAML::Node node_;
  std::string path_;
  absl::flat_hash_set<std::string> known_;
  absl::Status error_;
};

absl::Status ParseWeightingAt(const std::string& key, const std::string& text,
                              placement::Weighting* out) {
  auto w = placement::ParseWeighting(text);
  if (!w.ok()) {
    return Bad(key, absl::StrCat("unknown weighting \"", text,
                                 "\" (none, disk, load, adaptive)"));
  }
  *out = *w;
  return absl::OkStatus();
}

absl::Status ReadSections(MapReader& top, ScenarioSpec* s) {
  std::string weighting = "load", healthy = "none";
  {
    MapReader r(top.Child("cluster"), "cluster");
    r.Get("bookies", &s->bookies);
    r.Get("racks", &s->racks);
    r.GetList("bookie_config", &s->bookie_config);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  {
    MapReader r(top.Child("client"), "client");
    r.Get("weighting", &weighting);
    r.Get("bookie_info_interval_ms", &s->bookie_info_interval_ms);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    if (absl::Status st =
            ParseWeightingAt("client.weighting", weighting, &s->weighting);
        !st.ok()) {
      return st;
    }
  }
  {
    MapReader r(top.Child("ledgers"), "ledgers");
    r.Get("count", &s->ledgers);
    r.Get("ensemble", &s->ensemble);
    r.Get("write_quorum", &s->write_quorum);
    r.Get("ack_quorum", &s->ack_quorum);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  {
    MapReader r(top.Child("writers"), "writers");
    r.Get("entry_size", &s->entry_size);
    r.Get("rate", &s->rate);
    r.Get("hot_ledger_x", &s->hot_ledger_x);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  {
    std::string bw = "none";
    MapReader r(top.Child("background"), "background");
    r.Get("ledgers", &s->background_ledgers);
    r.Get("rate", &s->background_rate);
    r.Get("weighting", &bw);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    if (absl::Status st = ParseWeightingAt("background.weighting", bw,
                                           &s->background_weighting);
        !st.ok()) {
      return st;
    }
  }
  if (YAML::Node list = top.Child("readers"); Present(list)) {
    if (!list.IsSequence()) return Bad("readers", "expected a list");
    for (size_t i = 0; i < list.size(); ++i) {
      MapReader r(list[i], absl::StrCat("readers[", i, "]"));
      ReaderSpec rs;
      rs.name = absl::StrCat("reader-", i);
      r.Get("name", &rs.name);
      r.Get("ledger", &rs.ledger);
      r.Get("join_s", &rs.join_s);
      r.Get("caught_up_age_ms", &rs.caught_up_age_ms);
      if (absl::Status st = r.Finish(); !st.ok()) return st;
      s->readers.push_back(rs);
    }
  }
  if (YAML::Node n = top.Child("slow_bookie"); Present(n)) {
    MapReader r(n, "slow_bookie");
    r.Get("index", &s->slow_bookie);
    r.Get("sync_delay_ms", &s->sync_delay_ms);
    r.Get("sync_delay_x_healthy_p99", &s->sync_delay_x_healthy_p99);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    if (s->kind != ScenarioKind::kSlowBookie) {
      return Bad("slow_bookie", "only for kind slow-bookie");
    }
  }
  std::vector<std::string> policies;
  top.GetList("policies", &policies);
  for (size_t i = 0; i < policies.size(); ++i) {
    placement::Weighting w;
    if (absl::Status st = ParseWeightingAt(absl::StrCat("policies[", i, "]"),
                                           policies[i], &w);
        !st.ok()) {
      return st;
    }
    s->policies.push_back(w);
  }
  top.Get("healthy_weighting", &healthy);
  return ParseWeightingAt("healthy_weighting", healthy, &s->healthy_weighting);
}

absl::Status Validate(const ScenarioSpec& s) {
  auto finite = [](double v) { return std::isfinite(v); };
  if (s.name.empty()) return Bad("name", "must not be empty");
  if (!finite(s.duration_s) || s.duration_s <= 0) {
    return Bad("duration_s", "must be > 0");
  }
  if (!finite(s.warmup_s) || s.warmup_s < 0) {
    return Bad("warmup_s", "must be >= 0");
  }
  if (s.bookies < 1 || s.bookies > 64) {
    return Bad("cluster.bookies", "must be in [1, 64]");
  }
  if (s.racks < 1 || s.racks > s.bookies) {
    return Bad("cluster.racks", "must be in [1, cluster.bookies]");
  }
  if (s.bookie_info_interval_ms < 50) {
    return Bad("client.bookie_info_interval_ms", "must be >= 50");
  }
  if (s.ledgers < 1 || s.ledgers > 1000) {
    return Bad("ledgers.count", "must be in [1, 1000]");
  }
  if (s.ensemble < 1 || s.ensemble > s.bookies) {
    return Bad(
        "ledgers.ensemble",
        absl::StrCat("must be in [1, cluster.bookies = ", s.bookies, "]"));
  }
  if (s.write_quorum < 1 || s.write_quorum > s.ensemble) {
    return Bad("ledgers.write_quorum", "must be in [1, ensemble]");
  }
  if (s.ack_quorum < 1 || s.ack_quorum > s.write_quorum) {
    return Bad("ledgers.ack_quorum", "must be in [1, write_quorum]");
  }
  if (s.entry_size < 8 || s.entry_size > (16 << 20)) {
    return Bad("writers.entry_size", "must be in [8, 16 MiB]");
  }
  if (!finite(s.rate) || s.rate < 0) {
    return Bad("writers.rate", "must be >= 0 (0: as fast as possible)");
  }
  if (s.hot_ledger_x < 1 || s.hot_ledger_x > 1000) {
    return Bad("writers.hot_ledger_x", "must be in [1, 1000]");
  }
  if (s.hot_ledger_x > 1 && (s.ledgers < 2 || s.rate <= 0)) {
    return Bad(
        "writers.hot_ledger_x",
        "needs at least two ledgers and a paced rate (writers.rate > 0)");
  }
  if (!finite(s.background_rate) || s.background_rate < 0) {
    return Bad("background.rate", "must be >= 0 (0: no background writers)");
  }
  if (s.background_rate > 0 &&
      (s.background_ledgers < 1 || s.background_ledgers > 1000)) {
    return Bad("background.ledgers", "must be in [1, 1000]");
  }
  absl::flat_hash_set<std::string> names;
  for (size_t i = 0; i < s.readers.size(); ++i) {
    const ReaderSpec& r = s.readers[i];
    const std::string k = absl::StrCat("readers[", i, "]");
    if (!names.insert(r.name).second) {
      return Bad(k + ".name", absl::StrCat("\"", r.name, "\" used twice"));
    }
    if (r.ledger < 0 || r.ledger >= s.ledgers) {
      return Bad(k + ".ledger",
                 absl::StrCat(r.ledger, " is not a ledger index in [0, ",
                              s.ledgers, ")"));
    }
    if (!finite(r.join_s) || r.join_s < 0) return Bad(k + ".join_s", "< 0");
    if (r.join_s >= s.duration_s) {
      return Bad(k + ".join_s",
                 absl::StrCat(r.join_s,
                              " s is not before the end of the run "
                              "(duration_s ",
                              s.duration_s, ")"));
    }
    if (!finite(r.caught_up_age_ms) || r.caught_up_age_ms <= 0) {
      return Bad(k + ".caught_up_age_ms", "must be > 0");
    }
  }
  if (s.kind == ScenarioKind::kSlowBookie) {
    if (!s.readers.empty()) return Bad("readers", "not for kind slow-bookie");
    if (s.slow_bookie < 0 || s.slow_bookie >= s.bookies) {
      return Bad("slow_bookie.index",
                 absl::StrCat(s.slow_bookie, " is not a bookie index in [0, ",
                              s.bookies, ")"));
    }
    if (s.sync_delay_ms <= 0) {
      return Bad("slow_bookie.sync_delay_ms", "must be > 0");
    }
    if (!finite(s.sync_delay_x_healthy_p99) || s.sync_delay_x_healthy_p99 < 0 ||
        s.sync_delay_x_healthy_p99 > 1000) {
      return Bad("slow_bookie.sync_delay_x_healthy_p99",
                 "must be in [0, 1000] (0: sync_delay_ms as given)");
    }
    if (s.policies.empty()) return Bad("policies", "must not be empty");
    // The client must have polled every bookie's load report at least twice
    // before the measured ledgers are created.
    if (s.warmup_s * 1000 <
        2.0 * static_cast<double>(s.bookie_info_interval_ms)) {
      return Bad("warmup_s",
                 absl::StrCat(s.warmup_s,
                              " s is shorter than two bookie-info polls "
                              "(client.bookie_info_interval_ms ",
                              s.bookie_info_interval_ms, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ScenarioSpec> Parse(absl::string_view text) {
  const YAML::Node root = YAML::Load(std::string(text.data(), text.size()));
  if (!root || !root.IsMap()) return Bad("scenario", "expected a map");
  ScenarioSpec s;
  MapReader top(root, "");
  std::string kind = "workload";
  top.Get("name", &s.name);
  top.Get("kind", &kind);
  top.Get("duration_s", &s.duration_s);
  top.Get("warmup_s", &s.warmup_s);
  top.Get("seed", &s.seed);
  if (kind == "slow-bookie") {
    s.kind = ScenarioKind::kSlowBookie;
  } else if (kind != "workload") {
    return Bad("kind", absl::StrCat("unknown kind \"", kind,
                                    "\" (workload, slow-bookie)"));
  }
  if (absl::Status st = ReadSections(top, &s); !st.ok()) return st;
  if (absl::Status st = top.Finish(); !st.ok()) return st;
  if (absl::Status st = Validate(s); !st.ok()) return st;
  return s;
}

}  // namespace

absl::string_view KindName(ScenarioKind kind) {
  return kind == ScenarioKind::kSlowBookie ? "slow-bookie" : "workload";
}

absl::StatusOr<ScenarioSpec> ParseScenarioSpec(absl::string_view yaml) {
  try {
    return Parse(yaml);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario YAML: ", e.what()));
  }
}

absl::StatusOr<ScenarioSpec> ReadScenarioSpecFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<ScenarioSpec> s = ParseScenarioSpec(text.str());
  if (!s.ok()) {
    return absl::Status(s.status().code(),
                        absl::StrCat(path, ": ", s.status().message()));
  }
  return s;
}

}  // namespace bk::bkbench
