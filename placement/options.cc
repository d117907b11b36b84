#include "placement/options.h"

#include <cmath>

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

namespace {

absl::Status OutOfRange(absl::string_view field, absl::string_view range) {
  return absl::InvalidArgumentError(
      absl::StrCat("placement option ", field, " must be ", range));
}

bool In(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

}  // namespace

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
  if (a.report_half_life <= absl::ZeroDuration() ||
      a.observation_half_life <= absl::ZeroDuration()) {
    return OutOfRange("adaptive half-lives", "> 0");
  }
  if (!std::isfinite(a.saturation_mib_per_second) ||
      a.saturation_mib_per_second <= 0) {
    return OutOfRange("adaptive.saturation_mib_per_second", "> 0");
  }
  if (!std::isfinite(a.full_multiple_of_mean)) {
    return OutOfRange("adaptive.full_multiple_of_mean", "finite");
  }
  if (!In(a.busy_util_percent, 0, 99)) {
    return OutOfRange("adaptive.busy_util_percent", "in [0, 99]");
  }
  if (!In(a.min_weight, 0, 1) || a.min_weight == 0) {
    return OutOfRange("adaptive.min_weight", "in (0, 1]");
  }
  if (!std::isfinite(a.cap_multiple) ||
      (a.cap_multiple > 0 && a.cap_multiple < 1)) {
    return OutOfRange("adaptive.cap_multiple", ">= 1, or <= 0 for no cap");
  }
  if (a.choices < 1 || a.choices > 8) {
    return OutOfRange("adaptive.choices", "in [1, 8]");
  }
  if (!In(a.choice_margin, 0, 1) || a.choice_margin == 1) {
    return OutOfRange("adaptive.choice_margin", "in [0, 1)");
  }
  return absl::OkStatus();
}

}  // namespace bk::placement
