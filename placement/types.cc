#include "placement/types.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace bk::placement {
namespace {
constexpr char kNotEnoughBookiesUrl[] = "bk.placement/NotEnoughBookies";
}  // namespace

absl::string_view AdherenceName(Adherence adherence) {
  switch (adherence) {
    case Adherence::kMeetsStrict:
      return "MEETS_STRICT";
    case Adherence::kMeetsSoft:
      return "MEETS_SOFT";
    case Adherence::kFail:
      return "FAIL";
  }
  return "FAIL";
}

absl::Status NotEnoughBookiesError(absl::string_view message) {
  absl::Status status =
      absl::UnavailableError(absl::StrCat("not enough bookies: ", message));
  status.SetPayload(kNotEnoughBookiesUrl, absl::Cord("1"));
  return status;
}

bool IsNotEnoughBookies(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable &&
         status.GetPayload(kNotEnoughBookiesUrl).has_value();
}

}  // namespace bk::placement
