#include "bookie/storage/location_run.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "proto/coding.h"

namespace bk::bookie::locrun {

absl::StatusOr<RunView> RunView::Parse(uint64_t first_entry,
                                       absl::string_view value) {
  if (value.size() < kHeaderSize ||
      (value.size() - kHeaderSize) % kRelSize != 0) {
    return absl::DataLossError(absl::StrCat("index location record at entry ",
                                            first_entry, " has bad size ",
                                            value.size()));
  }
  const uint64_t count = 1 + (value.size() - kHeaderSize) / kRelSize;
  if (count - 1 > std::numeric_limits<uint64_t>::max() - first_entry) {
    return absl::DataLossError(absl::StrCat("index location record at entry ",
                                            first_entry, " runs past the end"));
  }
  return RunView(first_entry, count, value);
}

EntryLocation RunView::At(uint64_t entry) const {
  const uint64_t i = entry - first_;
  const uint64_t base = coding::GetFixed64BE(value_.data() + 8);
  const uint64_t rel = i == 0
                           ? 0
                           : coding::GetFixed32BE(value_.data() + kHeaderSize +
                                                  (i - 1) * kRelSize);
  return EntryLocation{coding::GetFixed64BE(value_.data()), base + rel};
}

void RunView::AppendAll(std::vector<LocatedEntry>* out) const {
  for (uint64_t i = 0; i < count_; ++i) {
    out->push_back(LocatedEntry{first_ + i, At(first_ + i)});
  }
}

bool Extends(const LocatedEntry& head, const LocatedEntry& prev,
             const LocatedEntry& next, size_t run_length, size_t max_run) {
  return run_length < std::min(max_run, kMaxRunEntries) &&
         next.entry == prev.entry + 1 && next.loc.log_id == head.loc.log_id &&
         next.loc.offset > prev.loc.offset &&
         next.loc.offset - head.loc.offset <=
             std::numeric_limits<uint32_t>::max();
}

std::vector<std::pair<size_t, size_t>> SplitRuns(
    absl::Span<const LocatedEntry> entries, size_t max_run) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t begin = 0;
  for (size_t i = 1; i <= entries.size(); ++i) {
    if (i == entries.size() || !Extends(entries[begin], entries[i - 1],
                                        entries[i], i - begin, max_run)) {
      runs.emplace_back(begin, i);
      begin = i;
    }
  }
  return runs;
}

std::string Encode(absl::Span<const LocatedEntry> run) {
  std::string value(kHeaderSize + (run.size() - 1) * kRelSize, '\0');
  const uint64_t base = run[0].loc.offset;
  coding::PutFixed64BE(value.data(), run[0].loc.log_id);
  coding::PutFixed64BE(value.data() + 8, base);
  for (size_t i = 1; i < run.size(); ++i) {
    coding::PutFixed32BE(value.data() + kHeaderSize + (i - 1) * kRelSize,
                         static_cast<uint32_t>(run[i].loc.offset - base));
  }
  return value;
}

}  // namespace bk::bookie::locrun
