#include "placement/options.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace bk::placement {

absl::string_view WeightingName(Weighting weighting) {
  switch (weighting) {
    case Weighting::kNone:
      return "none";
    case Weighting::kDisk:
      return "disk";
    case Weighting::kLoad:
      return "load";
    case Weighting::kAdaptive:
      return "adaptive";
  }
  return "none";
}

absl::StatusOr<Weighting> ParseWeighting(absl::string_view name) {
  for (Weighting w : {Weighting::kNone, Weighting::kDisk, Weighting::kLoad,
                      Weighting::kAdaptive}) {
    if (name == WeightingName(w)) return w;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown weighting \"", name, "\" (none, disk, load, adaptive)"));
}

absl::string_view ProbePickName(AdaptiveOptions::ProbePick pick) {
  switch (pick) {
    case AdaptiveOptions::ProbePick::kLeast:
      return "least";
    case AdaptiveOptions::ProbePick::kRandom:
      return "random";
    case AdaptiveOptions::ProbePick::kMixed:
      return "mixed";
    case AdaptiveOptions::ProbePick::kRule:
      return "rule";
  }
  return "least";
}

absl::StatusOr<AdaptiveOptions::ProbePick> ParseProbePick(
    absl::string_view name) {
  using Pick = AdaptiveOptions::ProbePick;
  for (Pick p : {Pick::kLeast, Pick::kRandom, Pick::kMixed, Pick::kRule}) {
    if (name == ProbePickName(p)) return p;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown probe pick \"", name, "\" (least, random, mixed, rule)"));
}

namespace {

absl::Status OutOfRange(absl::string_view field, absl::string_view range) {
  return absl::InvalidArgumentError(
      absl::StrCat("placement option ", field, " must be ", range));
}

bool In(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

}  // namespace

bool SharesNewLedgers(const PlacementOptions& options,
                      absl::Duration poll_interval, double poll_jitter) {
  const AdaptiveOptions& a = options.adaptive;
  return options.weighting == Weighting::kAdaptive && a.share_new_ledgers &&
         a.least_loaded_report_age > absl::ZeroDuration() &&
         poll_interval * (1 + poll_jitter) <= a.least_loaded_report_age;
}

absl::Status ValidatePlacementOptions(const PlacementOptions& o) {
  if (o.min_num_racks_per_write_quorum < 1) {
    return OutOfRange("minNumRacksPerWriteQuorum", ">= 1");
  }
  if (!std::isfinite(o.bookie_max_weight_multiple)) {
    return OutOfRange("bookieMaxWeightMultipleForWeightBasedPlacement",
                      "finite");
  }
  if (!In(o.load_threshold, 0, 100)) {
    return OutOfRange("loadThreshold", "in [0, 100]");
  }
  if (!In(o.low_load_bookie_ratio, 0, 1)) {
    return OutOfRange("lowLoadBookieRatio", "in [0, 1]");
  }
  if (o.read_reorder_threshold_pending_requests < 0) {
    return OutOfRange("readReorderThresholdPendingRequests", ">= 0");
  }
  if (o.max_placement_attempts < 1 || o.max_placement_attempts > 1000) {
    return OutOfRange("max_placement_attempts", "in [1, 1000]");
  }
  const AdaptiveOptions& a = o.adaptive;
  if (a.report_window < absl::ZeroDuration()) {
    return OutOfRange("adaptive.report_window", ">= 0");
  }
  if (a.least_loaded_report_age < absl::ZeroDuration()) {
    return OutOfRange("adaptive.least_loaded_report_age", ">= 0");
  }
  if (a.forecast_max_age < absl::ZeroDuration()) {
    return OutOfRange("adaptive.forecast_max_age", ">= 0");
  }
  if (a.max_report_age <= absl::ZeroDuration() ||
      a.observation_max_age <= absl::ZeroDuration()) {
    return OutOfRange("adaptive report and observation ages", "> 0");
  }
  if (!In(a.avoid_util_percent, 0, 100)) {
    return OutOfRange("adaptive.avoid_util_percent", "in [0, 100]");
  }
  if (!In(a.big_slot_util_percent, 0, 100)) {
    return OutOfRange("adaptive.big_slot_util_percent", "in [0, 100]");
  }
  if (!std::isfinite(a.big_slot_multiple) || a.big_slot_multiple <= 0) {
    return OutOfRange("adaptive.big_slot_multiple", "> 0");
  }
  if (a.big_slot_choices < 1 || a.big_slot_choices > 100000) {
    return OutOfRange("adaptive.big_slot_choices", "in [1, 100000]");
  }
  if (a.reserve_for_big < 0 || a.reserve_for_big > 100000) {
    return OutOfRange("adaptive.reserve_for_big", "in [0, 100000]");
  }
  if (!std::isfinite(a.small_slot_max_multiple)) {
    return OutOfRange("adaptive.small_slot_max_multiple", "finite");
  }
  if (!In(a.rank_match_min_spread, 0, 100)) {
    return OutOfRange("adaptive.rank_match_min_spread", "in [0, 100]");
  }
  if (!In(a.rank_spread, 0, 1)) {
    return OutOfRange("adaptive.rank_spread", "in [0, 1]");
  }
  if (!In(a.rankless_tilt, 0, 1) || a.rankless_tilt == 1) {
    return OutOfRange("adaptive.rankless_tilt", "in [0, 1)");
  }
  if (a.rate_memory < 8 || a.rate_memory > 1000000) {
    return OutOfRange("adaptive.rate_memory", "in [8, 1000000]");
  }
  if (!std::isfinite(a.slow_latency_multiple)) {
    return OutOfRange("adaptive.slow_latency_multiple", "finite");
  }
  if (!std::isfinite(a.probe_slow_latency_multiple)) {
    return OutOfRange("adaptive.probe_slow_latency_multiple", "finite");
  }
  if (!std::isfinite(a.probe_slow_floor_multiple)) {
    return OutOfRange("adaptive.probe_slow_floor_multiple", "finite");
  }
  if (a.latency_floor_memory <= absl::ZeroDuration() ||
      a.latency_floor_memory == absl::InfiniteDuration()) {
    return OutOfRange("adaptive.latency_floor_memory", "> 0 and finite");
  }
  if (a.probe_candidates < 0 || a.probe_candidates > 1000) {
    return OutOfRange("adaptive.probe_candidates", "in [0, 1000]");
  }
  const RegionOptions& r = o.region;
  if (r.min_regions_for_durability < 0 || r.min_regions_for_durability > 100) {
    return OutOfRange("reppMinimumRegionsForDurability", "in [0, 100]");
  }
  std::vector<std::string> names = r.regions_to_write;
  if (!r.local_region.empty()) names.push_back(r.local_region);
  for (const std::string& name : names) {
    const bool bad = name.empty() || absl::StrContains(name, '/') ||
                     std::any_of(name.begin(), name.end(),
                                 [](char c) { return absl::ascii_isspace(c); });
    if (bad) {
      return OutOfRange(absl::StrCat("region name \"", name, "\""),
                        "non-empty, without '/' or blanks");
    }
  }
  return absl::OkStatus();
}

}  // namespace bk::placement
