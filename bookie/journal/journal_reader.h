// JournalFileReader: reads the records of one journal file in order and
// tells a torn tail from corruption (format: journal_format.h).
//
//  - Torn tail: the first invalid bytes of the file (a record cut short, a
//    CRC mismatch, a zero-filled or garbage region) with no valid record
//    anywhere after them. This is what a crash during a write leaves; none
//    of it was ever acknowledged (acknowledgement follows the sync, and a
//    sync covers whole groups). The reader stops there and reports the
//    number of bytes to cut (report().torn_bytes, from report().valid_end).
//    Padding records do not count as valid records here: a torn direct
//    write may land a group's last block (its padding) without the records
//    before it. In a recycled file (format 3) the records of its previous
//    life carry another salt and are invalid here, so they end the file
//    like any torn tail.
//  - Corruption: invalid bytes followed by at least one valid record. Data
//    that was once durable has been damaged. Next() fails with DataLoss and
//    a message that says where, unless `skip_corrupt_records` is set; then
//    the range is skipped and recorded in report().skipped. In the newest
//    file, `cut_tail_at` may name the offset to cut instead (the operator's
//    per-start override after a power loss).
//  - An unknown format version is FailedPrecondition (never skipped).
//
// A file whose header is torn and which holds nothing valid is a file whose
// creation was interrupted: report().header_torn, valid_end 0.
//
// Not thread-safe. Views returned by Next() are valid until the next call.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_READER_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bookie/journal/journal_format.h"
#include "common/env.h"

namespace bk::bookie {

struct JournalReaderOptions {
  // journalSkipCorruptRecords (ours; BookKeeper has none). Default false: a
  // corrupt record in the middle of a journal refuses start. When true, the
  // corrupt range is skipped and reported; the entries in it are lost.
  // Limit: the reader resyncs on the next valid record, preferring the
  // damaged record's claimed end, but once a record's own header is no
  // guide (or the file header's salt is damaged), bytes inside a written
  // record's payload that form a valid record can be returned as one
  // (bench/results/fuzz.md, 2026-12-03).
  bool skip_corrupt_records = false;
  // journalCutNewestTailAt as configured (journal_options.h); replay turns
  // it into cut_tail_at for the file it names, if that file is the newest.
  std::string cut_newest_tail_at;
  // The file is its directory's newest: a refusal then also offers
  // journalCutNewestTailAt (journal_options.h) at the corrupt offset.
  bool newest_file = false;
  // >= 0: when the file's first invalid bytes start exactly here, they and
  // everything after them are a torn tail (reported in torn_bytes, for the
  // replay to cut), even though valid records follow. Replay sets it only
  // for the newest file named by journalCutNewestTailAt.
  int64_t cut_tail_at = -1;
};

struct JournalRecordView {
  journal_format::RecordType type = journal_format::RecordType::kZero;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::string_view payload;
  uint64_t offset = 0;      // where the record starts in the file
  uint64_t end_offset = 0;  // where the next record starts
};

struct JournalFileReport {
  struct Skipped {
    uint64_t offset = 0;
    uint64_t bytes = 0;
    std::string reason;
  };
  std::string path;
  uint64_t file_size = 0;
  uint64_t records = 0;          // valid records returned
  uint64_t valid_end = 0;        // end of the last valid byte range read
  uint64_t torn_bytes = 0;       // torn tail after valid_end (to be cut)
  std::string torn_reason;       // why the tail was judged torn
  bool header_torn = false;      // no valid header and nothing valid after it
  std::vector<Skipped> skipped;  // only with skip_corrupt_records
};

class JournalFileReader {
 public:
  // Opens `path` and checks its header against `expected_file_id`.
  // Records are returned from `start_offset` on, which must be a record
  // boundary (a checkpoint mark) or 0 for the first record.
  static absl::StatusOr<std::unique_ptr<JournalFileReader>> Open(
      Env* env, const std::string& path, uint64_t expected_file_id,
      uint64_t start_offset, const JournalReaderOptions& options);

  // Fills *record and returns true, or returns false at the end of the
  // valid data. Errors: DataLoss (corruption, see the file comment),
  // FailedPrecondition (unknown version), or the Env's read error. Errors
  // are sticky.
  absl::StatusOr<bool> Next(JournalRecordView* record);

  const JournalFileReport& report() const { return report_; }

 private:
  JournalFileReader(std::unique_ptr<RandomAccessFile> file, uint64_t size,
                    uint64_t expected_file_id,
                    const JournalReaderOptions& options);

  absl::Status ReadHeader(uint64_t start_offset);
  // Up to `n` bytes at `offset` (fewer only at the end of the file).
  absl::StatusOr<absl::string_view> Fetch(uint64_t offset, size_t n);
  // True and *record filled when a valid record starts at `offset`; false
  // with *reason when not.
  absl::StatusOr<bool> RecordAt(uint64_t offset, JournalRecordView* record,
                                std::string* reason);
  // The first offset after `offset` where a valid record starts, if any.
  // When the invalid record at `offset` has a plausible header (type,
  // length within the file) whose end is the file's end or a valid
  // record's, a record found before that end counts only if valid records
  // lead from it exactly to that end; otherwise the end itself is taken.
  // Bytes inside a damaged record's payload that merely look like a record
  // (an entry's payload may hold anything) are not taken for one, and a
  // damaged length that happens to land on a record loses nothing.
  absl::StatusOr<std::optional<uint64_t>> FindValidRecordAfter(uint64_t offset);
  // The end of the record whose header starts at `offset`, if that header
  // is plausible (see FindValidRecordAfter).
  absl::StatusOr<std::optional<uint64_t>> ClaimedEnd(uint64_t offset);
  // Decides between torn tail and corruption for invalid bytes at `offset`.
  absl::Status HandleInvalid(uint64_t offset, const std::string& reason);

  // Constant after construction.
  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t size_;
  const uint64_t expected_file_id_;
  const JournalReaderOptions options_;

  // The record salts (journal_format.h) a valid record may carry: the one
  // of the header's version and file id.
  std::vector<uint32_t> salts_;
  // The header says every group starts at a 4 KiB boundary
  // (journal_format.h, kFlagAlignedGroups).
  bool aligned_groups_ = false;
  std::string buf_;  // window of the file at buf_offset_
  uint64_t buf_offset_ = 0;
  uint64_t pos_ = 0;  // next record to read
  bool done_ = false;
  absl::Status error_;  // sticky
  JournalFileReport report_;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_READER_H_
