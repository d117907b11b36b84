// Reading entry logs: by location (EntryLogReader) and front to back
// (EntryLogScanner).
//
// Nothing corrupt is ever served: every record read is checked for a sane
// length, for the ids the caller expects and for its CRC before its bytes
// leave this file; any mismatch is DataLoss naming the log and offset.
//
// Threads: an EntryLogReader is immutable after Open and safe to share (pread
// is positional). An EntryLogScanner belongs to one thread.

#ifndef BK_BOOKIE_STORAGE_ENTRY_LOG_READER_H_
#define BK_BOOKIE_STORAGE_ENTRY_LOG_READER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bookie/storage/entry_buffer.h"
#include "common/env.h"

namespace bk::bookie {

class EntryLogReader {
 public:
  // Opens `path` and checks its file header (DataLoss if bad, NotFound if
  // the file does not exist).
  static absl::StatusOr<std::shared_ptr<EntryLogReader>> Open(
      Env* env, const std::string& path);

  // Reads the record at `offset`, which must hold (ledger_id, entry_id).
  absl::StatusOr<EntryBuffer> Read(uint64_t offset, uint64_t ledger_id,
                                   int64_t entry_id) const;

  uint64_t log_id() const { return log_id_; }
  const RandomAccessFile& file() const { return *file_; }
  // A version 2 log, whose records may be followed by zero padding
  // (entry_log_format.h).
  bool padded() const { return padded_; }

 private:
  EntryLogReader(std::unique_ptr<RandomAccessFile> file, uint64_t log_id,
                 bool padded)
      : file_(std::move(file)), log_id_(log_id), padded_(padded) {}

  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t log_id_;
  const bool padded_;
};

// One record as the scanner sees it. `data` points into the scanner's buffer
// and is valid until the next call to Next.
struct ScannedRecord {
  uint64_t offset = 0;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::string_view data;
  uint64_t size() const;  // record header + data
};

// Reads records sequentially from `start` up to `end` (exclusive) with large
// preads. A record that runs past `end` or past the end of the file is a
// torn tail: Next returns false and torn_tail() is true. A record with a bad
// length or CRC inside the range is DataLoss. In a version 2 log the
// scanner steps over padding (entry_log_format.h) to the next record.
class EntryLogScanner {
 public:
  EntryLogScanner(const EntryLogReader& reader, uint64_t start, uint64_t end,
                  size_t chunk_bytes = 1 << 20);

  // True and *out filled for the next record; false at the end.
  absl::StatusOr<bool> Next(ScannedRecord* out);
  bool torn_tail() const { return torn_tail_; }

 private:
  // Makes [pos_, pos_ + n) available in buf_; false if the file or range
  // ends first.
  absl::StatusOr<bool> Ensure(size_t n);

  const EntryLogReader& reader_;
  const uint64_t end_;
  const size_t chunk_bytes_;
  uint64_t pos_;             // file offset of the next record
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  // Not zeroed before each pread fills it: a 128 KiB memset per read-ahead
  // cost the bookie's read path as much as half its copy from the page
  // cache.
  std::unique_ptr<char[]> buf_;
  size_t buf_size_ = 0;  // bytes of buf_ holding the file from buf_offset_
  size_t buf_capacity_ = 0;
  uint64_t available_ = 0;  // bytes found from pos_ by the last failed Ensure
  bool torn_tail_ = false;
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOG_READER_H_
