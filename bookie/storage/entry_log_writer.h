// EntryLogWriter: appends records to one entry log file.
//
// Lifecycle: Create() makes the file, writes its header, syncs it and syncs
// the directory, so a log that the index may later point into can never
// vanish in a power cut. Records are then appended in batches with one
// writev per up to kMaxIovecs/2 records, straight from the callers' buffers
// (no copy of the data). Sync() makes everything appended durable.
//
// "appended" and "synced" are used as in common/env.h. A failed append or
// sync breaks the writer for good (sticky): every later call returns the
// first error, and nothing appended since the last good Sync may be trusted.
//
// Direct mode (entryLogDirectIo): the file is opened with O_DIRECT and
// records are copied into one aligned buffer, written in whole 4 KiB blocks
// once 1 MiB has gathered and at every Sync, which pads the last block with
// zeros (a version 2 log, entry_log_format.h). The kernel then neither
// copies the bytes into its page cache nor writes them back later, and
// nothing needs dropping after a sync. Where the filesystem refuses
// O_DIRECT (tmpfs) the writer falls back to the buffered version 1 log.
//
// Not thread-safe: the owner serialises all calls.

#ifndef BK_BOOKIE_STORAGE_ENTRY_LOG_WRITER_H_
#define BK_BOOKIE_STORAGE_ENTRY_LOG_WRITER_H_

#include <sys/uio.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/env.h"

namespace bk::bookie {

// One record to append: ids and the bytes to store. `data` is borrowed for
// the duration of the Append call only.
struct EntryLogItem {
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  absl::string_view data;
  // crc32c::Value(data) when known: the record CRC is then combined from
  // it (same bytes on disk) instead of computed over the data again.
  bool has_data_crc = false;
  uint32_t data_crc = 0;
};

class EntryLogWriter {
 public:
  // Creates `dir`/LogFileName(log_id) (truncating a leftover file of that
  // name), writes and syncs the file header and syncs `dir`.
  // `drop_synced_pages`: each successful Sync drops from the page cache
  // the synced pages more than `keep_cached_bytes` behind the end
  // (entryLogRemoveFromPageCache, entryLogPageCacheKeepBytes).
  // `direct_io`: direct mode, above (drop_synced_pages then has no use).
  static absl::StatusOr<std::unique_ptr<EntryLogWriter>> Create(
      Env* env, const std::string& dir, uint64_t log_id,
      bool drop_synced_pages = false, uint64_t keep_cached_bytes = 0,
      bool direct_io = false);

  EntryLogWriter(const EntryLogWriter&) = delete;
  EntryLogWriter& operator=(const EntryLogWriter&) = delete;

  // Appends one record per item, in order; offsets[i] receives the offset of
  // item i's record. REQUIRES: offsets.size() == items.size().
  absl::Status Append(absl::Span<const EntryLogItem> items,
                      absl::Span<uint64_t> offsets);
  absl::Status Sync();
  // Write-behind for a long run of appends before one Sync (a flush):
  // waits until what the call before started is written, then starts the
  // device writing what was appended since (or since the last Sync). So
  // the device writes one chunk while the caller appends the next, with
  // one chunk at most queued ahead of other writers (the journals on the
  // same disk). Makes nothing durable: only Sync does. A failure breaks the
  // writer, as a failed Sync does. Nothing to do in direct mode, whose
  // writes reach the device as they are made.
  absl::Status WriteBehind();
  // Closes the file without syncing.
  absl::Status Close();

  uint64_t log_id() const { return log_id_; }
  // Bytes appended so far, header included (and, in direct mode, the
  // padding of every sync so far).
  uint64_t size() const { return size_; }
  // Direct mode is in use (asked for and offered by the filesystem).
  bool direct() const { return direct_ != nullptr; }
  const absl::Status& status() const { return status_; }

 private:
  static constexpr int kMaxIovecs = 1024;

  // Direct mode's state: the aligned buffer holding what is not written
  // yet, which starts at file offset `written` (a block boundary).
  struct Direct {
    struct Free {
      void operator()(char* p) const { std::free(p); }
    };
    std::unique_ptr<char, Free> buf;
    size_t capacity = 0;
    size_t used = 0;
    uint64_t written = 0;
  };
  static constexpr size_t kDirectWriteBytes = 1 << 20;

  absl::Status AppendBuffered(absl::Span<const EntryLogItem> items,
                              absl::Span<uint64_t> offsets);
  absl::Status AppendDirect(absl::Span<const EntryLogItem> items,
                            absl::Span<uint64_t> offsets);
  // Makes room for `bytes` more in the direct buffer.
  void Reserve(size_t bytes);
  // Writes the direct buffer's whole blocks; with `pad`, all of it, the
  // last block padded (entry_log_format.h).
  absl::Status WriteDirect(bool pad);
  absl::Status Fail(absl::Status s) {
    if (status_.ok()) status_ = s;
    return s;
  }

  EntryLogWriter(std::unique_ptr<WritableFile> file, uint64_t log_id,
                 uint64_t size, bool drop_synced_pages,
                 uint64_t keep_cached_bytes)
      : file_(std::move(file)),
        log_id_(log_id),
        size_(size),
        drop_synced_pages_(drop_synced_pages),
        keep_cached_bytes_(keep_cached_bytes),
        behind_started_(size),
        behind_waited_(size) {}

  std::unique_ptr<WritableFile> file_;
  const uint64_t log_id_;
  uint64_t size_;
  const bool drop_synced_pages_;
  const uint64_t keep_cached_bytes_;
  // Pages before this offset (a page boundary) were dropped after a sync.
  uint64_t dropped_to_ = 0;
  // WriteBehind: the device was asked to write up to behind_started_ and
  // has written up to behind_waited_ (or a Sync covered it).
  uint64_t behind_started_;
  uint64_t behind_waited_;
  absl::Status status_;  // first error; sticky
  // Scratch reused across appends so that a flush does not allocate.
  std::vector<char> headers_;
  std::vector<struct iovec> iov_;
  std::unique_ptr<Direct> direct_;  // null in buffered mode
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOG_WRITER_H_
