#include "placement/options.h"

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

}  // namespace bk::placement
