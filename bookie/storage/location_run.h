// LocationRun: the value format of one record of LedgerIndex's "locations"
// column family, which holds where a run of a ledger's entries lives.
//
// Key (ledger_index.h): (ledger id u64 BE, first entry id u64 BE). Value:
//
//   log id      u64 BE   the entry log every entry of the run is in
//   base        u64 BE   offset of the first entry's record
//   rel[n - 1]  u32 BE   offset of entry first + i (i >= 1) minus base
//
// So a run of n entries is 16 + 4 (n - 1) bytes, and a run of one entry is
// the 16-byte (log id, offset) value every record had before runs: indexes
// written by earlier bookies read unchanged. Entries of a run are
// consecutive ids, in one log, at increasing offsets less than 4 GiB past
// the first; a run holds at most kMaxRunEntries entries.
//
// Why runs: the flush writes each ledger's entries in id order, one after
// the other, into one log. One record per entry cost about 1 us of CPU per
// entry in RocksDB (memtable insert, WAL, compaction), about 15 % of a
// bookie's CPU at its peak; one record per run divides that by the run's
// length.
//
// Pure functions; LedgerIndex keeps the records of a ledger disjoint.

#ifndef BK_BOOKIE_STORAGE_LOCATION_RUN_H_
#define BK_BOOKIE_STORAGE_LOCATION_RUN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "bookie/storage/entry_logger.h"

namespace bk::bookie {

// One entry's location; `entry` in key order (the id as u64).
struct LocatedEntry {
  uint64_t entry = 0;
  EntryLocation loc;
  friend bool operator==(const LocatedEntry&, const LocatedEntry&) = default;
};

namespace locrun {

inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kRelSize = 4;
// Bounds a record's size (1 KiB) and the work of reading one entry of it.
inline constexpr size_t kMaxRunEntries = 256;

// A decoded record; `value` must outlive it.
class RunView {
 public:
  // DataLoss when the value's size is not 16 + 4k.
  static absl::StatusOr<RunView> Parse(uint64_t first_entry,
                                       absl::string_view value);

  uint64_t first() const { return first_; }
  uint64_t count() const { return count_; }
  uint64_t last() const { return first_ + count_ - 1; }
  bool Covers(uint64_t entry) const {
    return entry >= first_ && entry - first_ < count_;
  }
  // REQUIRES: Covers(entry).
  EntryLocation At(uint64_t entry) const;
  // Appends every entry of the run, in id order.
  void AppendAll(std::vector<LocatedEntry>* out) const;

 private:
  RunView(uint64_t first, uint64_t count, absl::string_view value)
      : first_(first), count_(count), value_(value) {}
  uint64_t first_;
  uint64_t count_;
  absl::string_view value_;
};

// Whether `next` may follow `prev` in the run that began with `head` and
// holds `run_length` entries, in runs of at most `max_run` entries
// (1 <= max_run <= kMaxRunEntries; 1: one record per entry, the format of
// bookies before runs).
bool Extends(const LocatedEntry& head, const LocatedEntry& prev,
             const LocatedEntry& next, size_t run_length,
             size_t max_run = kMaxRunEntries);

// Cuts entries (ascending, distinct ids) into maximal runs of at most
// `max_run` entries, each given as [begin, end) indexes into `entries`.
std::vector<std::pair<size_t, size_t>> SplitRuns(
    absl::Span<const LocatedEntry> entries, size_t max_run = kMaxRunEntries);

// The value of one run. REQUIRES: `run` is one of SplitRuns' pieces.
std::string Encode(absl::Span<const LocatedEntry> run);

}  // namespace locrun
}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_LOCATION_RUN_H_
