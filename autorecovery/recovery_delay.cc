#include "autorecovery/recovery_delay.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace bk::autorecovery {
namespace {

bool InRange(int64_t seconds) {
  return seconds >= 0 && seconds <= kMaxLostBookieRecoveryDelaySeconds;
}

}  // namespace

absl::Status SetLostBookieRecoveryDelay(metadata::MetadataStore* store,
                                        int64_t seconds) {
  if (!InRange(seconds)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lostBookieRecoveryDelay must be 0..",
        kMaxLostBookieRecoveryDelaySeconds, " seconds, not ", seconds));
  }
  const std::string value = absl::StrCat(seconds);
  auto created =
      store->CreateNode(kLostBookieRecoveryDelayNode, value,
                        metadata::MetadataStore::NodeMode::kPersistent);
  if (created.ok() || !absl::IsAlreadyExists(created.status())) {
    return created.status();
  }
  return store
      ->SetNode(kLostBookieRecoveryDelayNode, value, metadata::kAnyVersion)
      .status();
}

absl::Status ClearLostBookieRecoveryDelay(metadata::MetadataStore* store) {
  absl::Status s =
      store->DeleteNode(kLostBookieRecoveryDelayNode, metadata::kAnyVersion);
  return absl::IsNotFound(s) ? absl::OkStatus() : s;
}

absl::StatusOr<std::optional<absl::Duration>> ReadLostBookieRecoveryDelay(
    metadata::MetadataStore* store) {
  auto read = store->ReadNode(kLostBookieRecoveryDelayNode);
  if (absl::IsNotFound(read.status())) return std::optional<absl::Duration>();
  if (!read.ok()) return read.status();
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(read->value), &seconds) ||
      !InRange(seconds)) {
    return absl::DataLossError(
        absl::StrCat(kLostBookieRecoveryDelayNode, " holds '", read->value,
                     "', not a number of seconds in 0..",
                     kMaxLostBookieRecoveryDelaySeconds));
  }
  return std::optional<absl::Duration>(absl::Seconds(seconds));
}

}  // namespace bk::autorecovery
