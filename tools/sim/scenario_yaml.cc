#include "tools/sim/scenario_yaml.h"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace bk::sim {
namespace {

// Reads the keys of one YAML map. Every Get marks its key as known; Finish
// rejects any key never asked for, so a typo is an error, not a default.
// Methods throw YAML::Exception only through yaml-cpp's conversions, which
// ParseScenarioYaml catches.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string path)
      : node_(node), path_(std::move(path)) {
    if (!node_.IsMap()) {
      error_ = absl::InvalidArgumentError(
          absl::StrCat(path_.empty() ? "scenario" : path_, ": expected a map"));
    }
  }

  template <typename T>
  void Get(const std::string& key, T* out) {
    known_.insert(key);
    if (!error_.ok()) return;
    const YAML::Node v = node_[key];
    if (!v) return;
    if (!v.IsScalar() || !YAML::convert<T>::decode(v, *out)) {
      error_ = absl::InvalidArgumentError(
          absl::StrCat(Key(key), ": expected a ", TypeName<T>()));
    }
  }

  // The node under `key` (undefined if absent) for nested readers.
  YAML::Node Child(const std::string& key) {
    known_.insert(key);
    return error_.ok() ? node_[key] : YAML::Node();
  }

  std::string Key(const std::string& key) const {
    return path_.empty() ? key : absl::StrCat(path_, ".", key);
  }

  absl::Status Finish() {
    if (!error_.ok()) return error_;
    for (const auto& entry : node_) {
      const std::string key = entry.first.as<std::string>();
      if (!known_.contains(key)) {
        return absl::InvalidArgumentError(
            absl::StrCat(Key(key), ": unknown key"));
      }
    }
    return absl::OkStatus();
  }

  void Fail(absl::Status status) {
    if (error_.ok()) error_ = std::move(status);
  }
  bool ok() const { return error_.ok(); }

 private:
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "boolean";
    if constexpr (std::is_same_v<T, int>) return "integer";
    if constexpr (std::is_same_v<T, double>) return "number";
    return "string";
  }

  YAML::Node node_;
  std::string path_;
  absl::flat_hash_set<std::string> known_;
  absl::Status error_;
};

absl::Status ReadDevices(const YAML::Node& list, Scenario* s) {
  if (!list) return absl::OkStatus();
  if (!list.IsSequence()) {
    return absl::InvalidArgumentError("devices: expected a list");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    MapReader r(list[i], absl::StrCat("devices[", i, "]"));
    DeviceClass d;
    r.Get("name", &d.name);
    r.Get("capacity_mib_per_second", &d.capacity_mib_per_second);
    r.Get("sync_ms", &d.sync_ms);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    s->devices.push_back(d);
  }
  return absl::OkStatus();
}

absl::Status ReadGroups(const YAML::Node& list, Scenario* s) {
  if (!list) return absl::OkStatus();
  if (!list.IsSequence()) {
    return absl::InvalidArgumentError("bookie_groups: expected a list");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    MapReader r(list[i], absl::StrCat("bookie_groups[", i, "]"));
    BookieGroup g;
    r.Get("count", &g.count);
    r.Get("device", &g.device);
    r.Get("bookies_per_device", &g.bookies_per_device);
    r.Get("disk_capacity_gib", &g.disk_capacity_gib);
    r.Get("disk_used_fraction", &g.disk_used_fraction);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    s->bookie_groups.push_back(g);
  }
  return absl::OkStatus();
}

absl::Status ReadGrayFailures(const YAML::Node& list, Scenario* s) {
  if (!list) return absl::OkStatus();
  if (!list.IsSequence()) {
    return absl::InvalidArgumentError("gray_failures: expected a list");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    MapReader r(list[i], absl::StrCat("gray_failures[", i, "]"));
    GrayFailure f;
    r.Get("bookie", &f.bookie);
    r.Get("start_s", &f.start_s);
    r.Get("duration_s", &f.duration_s);
    r.Get("slowdown", &f.slowdown);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
    s->gray_failures.push_back(f);
  }
  return absl::OkStatus();
}

absl::Status ReadPolicies(const YAML::Node& list, Scenario* s) {
  if (!list) {
    s->policies = {placement::Weighting::kNone, placement::Weighting::kDisk,
                   placement::Weighting::kLoad,
                   placement::Weighting::kAdaptive};
    return absl::OkStatus();
  }
  if (!list.IsSequence()) {
    return absl::InvalidArgumentError("policies: expected a list");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsScalar()) {
      return absl::InvalidArgumentError(
          absl::StrCat("policies[", i, "]: expected a name"));
    }
    const std::string name = list[i].as<std::string>();
    absl::StatusOr<placement::Weighting> w = placement::ParseWeighting(name);
    if (!w.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("policies[", i, "]: unknown policy \"", name,
                       "\" (none, disk, load, adaptive)"));
    }
    s->policies.push_back(*w);
  }
  return absl::OkStatus();
}

absl::Status ReadPlacement(const YAML::Node& node, Scenario* s) {
  if (!node) return absl::OkStatus();
  placement::PlacementOptions& p = s->placement;
  MapReader r(node, "placement");
  r.Get("minNumRacksPerWriteQuorum", &p.min_num_racks_per_write_quorum);
  r.Get("enforceMinNumRacksPerWriteQuorum",
        &p.enforce_min_num_racks_per_write_quorum);
  r.Get("bookieMaxWeightMultipleForWeightBasedPlacement",
        &p.bookie_max_weight_multiple);
  r.Get("loadThreshold", &p.load_threshold);
  r.Get("lowLoadBookieRatio", &p.low_load_bookie_ratio);
  std::string policy = p.region.enabled ? "region-aware" : "rack-aware";
  r.Get("ensemblePlacementPolicy", &policy);
  r.Get("reppMinimumRegionsForDurability",
        &p.region.min_regions_for_durability);
  r.Get("reppEnableDurabilityEnforcementInReplace",
        &p.region.enforce_durability_in_replace);
  const YAML::Node adaptive = r.Child("adaptive");
  if (absl::Status st = r.Finish(); !st.ok()) return st;
  if (policy != "rack-aware" && policy != "region-aware") {
    return absl::InvalidArgumentError(
        absl::StrCat("placement.ensemblePlacementPolicy: \"", policy,
                     "\" is not rack-aware or region-aware"));
  }
  p.region.enabled = policy == "region-aware";
  if (!adaptive) return absl::OkStatus();
  placement::AdaptiveOptions& a = p.adaptive;
  MapReader ar(adaptive, "placement.adaptive");
  double report_window_s = absl::ToDoubleSeconds(a.report_window);
  double max_report_age_s = absl::ToDoubleSeconds(a.max_report_age);
  double forecast_max_age_s = absl::ToDoubleSeconds(a.forecast_max_age);
  double observation_max_age_s = absl::ToDoubleSeconds(a.observation_max_age);
  double latency_floor_memory_s = absl::ToDoubleSeconds(a.latency_floor_memory);
  ar.Get("report_window_s", &report_window_s);
  ar.Get("max_report_age_s", &max_report_age_s);
  ar.Get("forecast_max_age_s", &forecast_max_age_s);
  ar.Get("avoid_util_percent", &a.avoid_util_percent);
  ar.Get("big_slot_multiple", &a.big_slot_multiple);
  ar.Get("big_slot_util_percent", &a.big_slot_util_percent);
  ar.Get("big_slot_choices", &a.big_slot_choices);
  ar.Get("reserve_for_big", &a.reserve_for_big);
  ar.Get("small_slot_max_multiple", &a.small_slot_max_multiple);
  ar.Get("rank_spread", &a.rank_spread);
  ar.Get("rank_match_min_spread", &a.rank_match_min_spread);
  ar.Get("rate_memory", &a.rate_memory);
  double least_loaded_report_age_s =
      absl::ToDoubleSeconds(a.least_loaded_report_age);
  ar.Get("least_loaded_report_age_s", &least_loaded_report_age_s);
  ar.Get("share_new_ledgers", &a.share_new_ledgers);
  ar.Get("rankless_tilt", &a.rankless_tilt);
  ar.Get("slow_latency_multiple", &a.slow_latency_multiple);
  ar.Get("observation_max_age_s", &observation_max_age_s);
  ar.Get("probe_candidates", &a.probe_candidates);
  std::string probe_pick(placement::ProbePickName(a.probe_pick));
  ar.Get("probe_pick", &probe_pick);
  ar.Get("probe_choose_least", &a.probe_choose_least);
  ar.Get("probe_slow_latency_multiple", &a.probe_slow_latency_multiple);
  ar.Get("probe_slow_floor_multiple", &a.probe_slow_floor_multiple);
  ar.Get("latency_floor_memory_s", &latency_floor_memory_s);
  if (absl::Status st = ar.Finish(); !st.ok()) return st;
  absl::StatusOr<placement::AdaptiveOptions::ProbePick> pick =
      placement::ParseProbePick(probe_pick);
  if (!pick.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "placement.adaptive.probe_pick: ", pick.status().message()));
  }
  a.probe_pick = *pick;
  for (auto [name, v] :
       {std::pair{"report_window_s", report_window_s},
        std::pair{"max_report_age_s", max_report_age_s},
        std::pair{"forecast_max_age_s", forecast_max_age_s},
        std::pair{"observation_max_age_s", observation_max_age_s},
        std::pair{"latency_floor_memory_s", latency_floor_memory_s},
        std::pair{"least_loaded_report_age_s", least_loaded_report_age_s}}) {
    if (!(v >= 0 && v < 1e9)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "placement.adaptive.", name, " must be in [0, 1e9), got ", v));
    }
  }
  a.report_window = absl::Seconds(report_window_s);
  a.max_report_age = absl::Seconds(max_report_age_s);
  a.forecast_max_age = absl::Seconds(forecast_max_age_s);
  a.observation_max_age = absl::Seconds(observation_max_age_s);
  a.latency_floor_memory = absl::Seconds(latency_floor_memory_s);
  a.least_loaded_report_age = absl::Seconds(least_loaded_report_age_s);
  return absl::OkStatus();
}

absl::Status ReadSections(MapReader& top, Scenario* s) {
  if (YAML::Node n = top.Child("clients"); n) {
    MapReader r(n, "clients");
    ClientConfig& c = s->clients;
    r.Get("count", &c.count);
    r.Get("topics_per_client", &c.topics_per_client);
    r.Get("report_interval_s", &c.report_interval_s);
    r.Get("report_jitter", &c.report_jitter);
    r.Get("observation_interval_s", &c.observation_interval_s);
    r.Get("quarantine_s", &c.quarantine_s);
    r.Get("rate_hints", &c.rate_hints);
    r.Get("perfect_reports", &c.perfect_reports);
    r.Get("shared_placements", &c.shared_placements);
    r.Get("clairvoyant", &c.clairvoyant);
    r.Get("greedy", &c.greedy);
    r.Get("exact_polls", &c.exact_polls);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  if (YAML::Node n = top.Child("traffic"); n) {
    MapReader r(n, "traffic");
    TrafficConfig& t = s->traffic;
    r.Get("mean_mib_per_second", &t.mean_mib_per_second);
    r.Get("pareto_shape", &t.pareto_shape);
    r.Get("max_mib_per_second", &t.max_mib_per_second);
    r.Get("partition_mib_per_second", &t.partition_mib_per_second);
    r.Get("burst_sigma", &t.burst_sigma);
    r.Get("entry_bytes", &t.entry_bytes);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  if (YAML::Node n = top.Child("ledgers"); n) {
    MapReader r(n, "ledgers");
    LedgerConfig& l = s->ledgers;
    r.Get("ensemble_size", &l.ensemble_size);
    r.Get("write_quorum", &l.write_quorum);
    r.Get("ack_quorum", &l.ack_quorum);
    r.Get("lifetime_s", &l.lifetime_s);
    r.Get("lifetime_jitter", &l.lifetime_jitter);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  if (YAML::Node n = top.Child("monitor"); n) {
    MapReader r(n, "monitor");
    r.Get("sample_interval_s", &s->monitor.sample_interval_s);
    r.Get("window_samples", &s->monitor.window_samples);
    if (absl::Status st = r.Finish(); !st.ok()) return st;
  }
  if (absl::Status st = ReadDevices(top.Child("devices"), s); !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadGroups(top.Child("bookie_groups"), s); !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadGrayFailures(top.Child("gray_failures"), s);
      !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadPolicies(top.Child("policies"), s); !st.ok()) {
    return st;
  }
  return ReadPlacement(top.Child("placement"), s);
}

absl::StatusOr<Scenario> Parse(absl::string_view text) {
  const YAML::Node root = YAML::Load(std::string(text.data(), text.size()));
  Scenario s;
  MapReader top(root, "");
  top.Get("name", &s.name);
  top.Get("duration_s", &s.duration_s);
  top.Get("tick_ms", &s.tick_ms);
  top.Get("metrics_interval_s", &s.metrics_interval_s);
  top.Get("herd_window_s", &s.herd_window_s);
  top.Get("warmup_s", &s.warmup_s);
  top.Get("max_queue_s", &s.max_queue_s);
  top.Get("add_timeout_s", &s.add_timeout_s);
  top.Get("add_lag_timeout_s", &s.add_lag_timeout_s);
  top.Get("journal_max_group_wait_ms", &s.journal_max_group_wait_ms);
  top.Get("racks", &s.racks);
  top.Get("regions", &s.regions);
  top.Get("readonly_bookies", &s.readonly_bookies);
  if (!top.ok()) return top.Finish();
  if (absl::Status st = ReadSections(top, &s); !st.ok()) return st;
  if (absl::Status st = top.Finish(); !st.ok()) return st;
  if (absl::Status st = ValidateScenario(s); !st.ok()) return st;
  return s;
}

}  // namespace

absl::StatusOr<Scenario> ParseScenarioYaml(absl::string_view text) {
  try {
    return Parse(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario YAML: ", e.what()));
  }
}

absl::StatusOr<Scenario> ReadScenarioFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read scenario ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<Scenario> s = ParseScenarioYaml(text.str());
  if (!s.ok()) {
    return absl::Status(s.status().code(),
                        absl::StrCat(path, ": ", s.status().message()));
  }
  return s;
}

}  // namespace bk::sim
