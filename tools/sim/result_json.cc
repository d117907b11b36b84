#include "tools/sim/result_json.h"

#include <cmath>
#include <string>

#include "absl/time/time.h"

namespace bk::sim {
namespace {

using nlohmann::ordered_json;

double Round6(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(
      10.0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * scale) / scale;
}

std::string Name(placement::Weighting w) {
  const absl::string_view n = placement::WeightingName(w);
  return std::string(n.data(), n.size());
}

// A share rounded to 6 significant digits, or null when there is none.
ordered_json GapJson(double gap) {
  if (std::isnan(gap)) return nullptr;
  return Round6(gap);
}

}  // namespace

ordered_json ScenarioToJson(const Scenario& s) {
  ordered_json j;
  j["name"] = s.name;
  j["duration_s"] = s.duration_s;
  j["tick_ms"] = s.tick_ms;
  j["metrics_interval_s"] = s.metrics_interval_s;
  j["herd_window_s"] = s.herd_window_s;
  j["warmup_s"] = s.warmup_s;
  j["max_queue_s"] = s.max_queue_s;
  j["add_timeout_s"] = s.add_timeout_s;
  j["add_lag_timeout_s"] = s.add_lag_timeout_s;
  j["journal_max_group_wait_ms"] = s.journal_max_group_wait_ms;
  j["bookies"] = s.BookieCount();
  j["racks"] = s.racks;
  j["readonly_bookies"] = s.readonly_bookies;
  j["devices"] = ordered_json::array();
  for (const DeviceClass& d : s.devices) {
    j["devices"].push_back(
        {{"name", d.name},
         {"capacity_mib_per_second", d.capacity_mib_per_second},
         {"sync_ms", d.sync_ms}});
  }
  j["bookie_groups"] = ordered_json::array();
  for (const BookieGroup& g : s.bookie_groups) {
    j["bookie_groups"].push_back(
        {{"count", g.count},
         {"device", g.device},
         {"bookies_per_device", g.bookies_per_device},
         {"disk_capacity_gib", g.disk_capacity_gib},
         {"disk_used_fraction", g.disk_used_fraction}});
  }
  j["gray_failures"] = ordered_json::array();
  for (const GrayFailure& f : s.gray_failures) {
    j["gray_failures"].push_back({{"bookie", f.bookie},
                                  {"start_s", f.start_s},
                                  {"duration_s", f.duration_s},
                                  {"slowdown", f.slowdown}});
  }
  const ClientConfig& c = s.clients;
  j["clients"] = {{"count", c.count},
                  {"topics_per_client", c.topics_per_client},
                  {"report_interval_s", c.report_interval_s},
                  {"report_jitter", c.report_jitter},
                  {"observation_interval_s", c.observation_interval_s},
                  {"quarantine_s", c.quarantine_s},
                  {"rate_hints", c.rate_hints},
                  {"perfect_reports", c.perfect_reports},
                  {"clairvoyant", c.clairvoyant},
                  {"greedy", c.greedy},
                  {"exact_polls", c.exact_polls},
                  {"shared_placements", c.shared_placements}};
  const TrafficConfig& t = s.traffic;
  j["traffic"] = {{"mean_mib_per_second", t.mean_mib_per_second},
                  {"pareto_shape", t.pareto_shape},
                  {"max_mib_per_second", t.max_mib_per_second},
                  {"partition_mib_per_second", t.partition_mib_per_second},
                  {"burst_sigma", t.burst_sigma},
                  {"entry_bytes", t.entry_bytes}};
  const LedgerConfig& l = s.ledgers;
  j["ledgers"] = {{"ensemble_size", l.ensemble_size},
                  {"write_quorum", l.write_quorum},
                  {"ack_quorum", l.ack_quorum},
                  {"lifetime_s", l.lifetime_s},
                  {"lifetime_jitter", l.lifetime_jitter}};
  j["monitor"] = {{"sample_interval_s", s.monitor.sample_interval_s},
                  {"window_samples", s.monitor.window_samples}};
  j["policies"] = ordered_json::array();
  for (placement::Weighting w : s.policies) j["policies"].push_back(Name(w));
  const placement::PlacementOptions& p = s.placement;
  const placement::AdaptiveOptions& a = p.adaptive;
  j["placement"] = {
      {"minNumRacksPerWriteQuorum", p.min_num_racks_per_write_quorum},
      {"enforceMinNumRacksPerWriteQuorum",
       p.enforce_min_num_racks_per_write_quorum},
      {"bookieMaxWeightMultipleForWeightBasedPlacement",
       p.bookie_max_weight_multiple},
      {"loadThreshold", p.load_threshold},
      {"lowLoadBookieRatio", p.low_load_bookie_ratio},
      {"adaptive",
       {{"report_window_s", absl::ToDoubleSeconds(a.report_window)},
        {"max_report_age_s", absl::ToDoubleSeconds(a.max_report_age)},
        {"avoid_util_percent", a.avoid_util_percent},
        {"big_slot_multiple", a.big_slot_multiple},
        {"big_slot_util_percent", a.big_slot_util_percent},
        {"big_slot_choices", a.big_slot_choices},
        {"reserve_for_big", a.reserve_for_big},
        {"small_slot_max_multiple", a.small_slot_max_multiple},
        {"rank_spread", a.rank_spread},
        {"rate_memory", a.rate_memory},
        {"rankless_tilt", a.rankless_tilt},
        {"slow_latency_multiple", a.slow_latency_multiple},
        {"observation_max_age_s", absl::ToDoubleSeconds(a.observation_max_age)},
        {"probe_candidates", a.probe_candidates},
        {"probe_pick", placement::ProbePickName(a.probe_pick)},
        {"probe_choose_least", a.probe_choose_least},
        {"probe_slow_latency_multiple", a.probe_slow_latency_multiple},
        {"probe_slow_floor_multiple", a.probe_slow_floor_multiple},
        {"latency_floor_memory_s",
         absl::ToDoubleSeconds(a.latency_floor_memory)}}}};
  return j;
}

ordered_json ResultToJson(const SimulationResult& r) {
  ordered_json out;
  ordered_json policies = ordered_json::object();
  for (const PolicyRun& run : r.runs) {
    const PolicySummary& s = run.summary;
    policies[Name(run.weighting)] = {
        {"throughput_stddev", Round6(s.throughput_stddev)},
        {"throughput_range", Round6(s.throughput_range)},
        {"top10_throughput", Round6(s.top10_throughput)},
        {"disk_throughput_stddev", Round6(s.disk_throughput_stddev)},
        {"disk_throughput_range", Round6(s.disk_throughput_range)},
        {"disk_top10_throughput", Round6(s.disk_top10_throughput)},
        {"p50_write_latency", Round6(s.p50_write_latency)},
        {"p99_write_latency", Round6(s.p99_write_latency)},
        {"p999_write_latency", Round6(s.p999_write_latency)},
        {"herd_index", Round6(s.herd_index)},
        {"lower_bound_throughput_stddev", Round6(s.bound_throughput_stddev)},
        {"gap_closed", GapJson(GapClosed(r, run))},
        {"ensemble_changes", run.ensemble_changes},
        {"lag_changes", run.lag_changes},
        {"replace_failures", run.replace_failures},
        {"probes_per_placement",
         Round6(run.placement_calls > 0
                    ? static_cast<double>(run.probes) /
                          static_cast<double>(run.placement_calls)
                    : 0.0)}};
  }
  out["policies"] = std::move(policies);
  // Traffic is the same for every policy, so is the ideal balance
  // (metrics.h) but for the ensemble changes a policy causes: the lower
  // bound is the smallest over the runs (LowerBoundStddev).
  if (!r.runs.empty()) {
    const PolicySummary& s = r.runs.front().summary;
    out["ideal_balance"] = {
        {"throughput_stddev", Round6(s.ideal_throughput_stddev)},
        {"mean_throughput_stddev", Round6(s.mean_ideal_stddev)},
        {"lower_bound_throughput_stddev", Round6(LowerBoundStddev(r))}};
  }
  out["scenario"] = ScenarioToJson(r.scenario);
  out["seed"] = r.seed;
  return out;
}

}  // namespace bk::sim
