#include "bookie/journal/journal_options.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace bk::bookie {

absl::StatusOr<std::optional<TailCut>> ParseTailCut(const std::string& value) {
  if (value.empty()) return std::optional<TailCut>();
  const size_t colon = value.rfind(':');
  TailCut cut;
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size() ||
      value.find_first_not_of("0123456789", colon + 1) != std::string::npos ||
      !absl::SimpleAtoi(value.substr(colon + 1), &cut.offset)) {
    return absl::InvalidArgumentError(
        absl::StrCat("journalCutNewestTailAt '", value,
                     "': expected <journal file>:<offset>, as the refusal "
                     "to start printed it"));
  }
  cut.path = value.substr(0, colon);
  return std::optional<TailCut>(std::move(cut));
}

absl::Status JournalOptions::Validate() const {
  if (dirs.empty()) {
    return absl::InvalidArgumentError("journalDirectories is empty");
  }
  if (auto cut = ParseTailCut(cut_newest_tail_at); !cut.ok()) {
    return cut.status();
  }
  absl::flat_hash_set<std::string> seen;
  for (const std::string& d : dirs) {
    if (d.empty()) return absl::InvalidArgumentError("empty journal directory");
    if (!seen.insert(d).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("journal directory listed twice: ", d));
    }
  }
  if (max_file_size_bytes < (uint64_t{1} << 16)) {
    return absl::InvalidArgumentError("journalMaxSizeMB too small");
  }
  if (max_backups < 0) {
    return absl::InvalidArgumentError("journalMaxBackups must be >= 0");
  }
  if (max_syncs_in_flight < 1 || max_syncs_in_flight > 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        "journalMaxSyncsInFlight must be 1..8, not ", max_syncs_in_flight));
  }
  if (max_group_wait < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("journalMaxGroupWaitMSec must be >= 0");
  }
  if (buffered_writes_threshold_bytes == 0) {
    return absl::InvalidArgumentError(
        "journalBufferedWritesThreshold must be > 0");
  }
  if (buffered_writes_threshold_bytes > kMaxBufferedWritesThreshold) {
    return absl::InvalidArgumentError(
        absl::StrCat("journalBufferedWritesThreshold must be at most ",
                     kMaxBufferedWritesThreshold,
                     " bytes (a group must stay well within "
                     "the reader's 32 MiB byte-by-byte scan window)"));
  }
  return absl::OkStatus();
}

}  // namespace bk::bookie
