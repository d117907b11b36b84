// EntryLogger: the entry logs of one ledger directory.
//
// Owns the current EntryLogWriter and rolls to a new log when the next
// record would take the current one past `size_limit` (BookKeeper's
// logSizeLimit); a rolled log is synced before it is closed, so every log
// but the current one is fully durable. Log ids only grow; a new logger
// never appends to an existing log (after a crash its tail may be torn).
//
// Also keeps the open readers, one per log, shared with in-flight reads, so
// removing a log while a read holds its reader is safe (the file is
// unlinked, the descriptor stays valid until the read finishes).
//
// Threads: Append, Sync, current_log_id and size are serialised by the
// owner (LedgerDir's write_mu_). Reader, Remove and ListLogs are thread-safe.

#ifndef BK_BOOKIE_STORAGE_ENTRY_LOGGER_H_
#define BK_BOOKIE_STORAGE_ENTRY_LOGGER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/entry_log_writer.h"
#include "common/env.h"

namespace bk::bookie {

// Where a record lives.
struct EntryLocation {
  uint64_t log_id = 0;
  uint64_t offset = 0;
  friend bool operator==(const EntryLocation&, const EntryLocation&) = default;
};

class EntryLogger {
 public:
  // Lists the logs in `dir`; the first new log gets an id above every
  // existing one and above `min_next_id`. `drop_synced_pages`,
  // `keep_cached_bytes`, `direct_io`: see EntryLogWriter::Create.
  static absl::StatusOr<std::unique_ptr<EntryLogger>> Open(
      Env* env, const std::string& dir, uint64_t size_limit,
      uint64_t min_next_id, bool drop_synced_pages = false,
      uint64_t keep_cached_bytes = 0, bool direct_io = false);

  // Appends the items (rolling as needed) and fills locations[i].
  // REQUIRES: locations.size() == items.size().
  absl::Status Append(absl::Span<const EntryLogItem> items,
                      absl::Span<EntryLocation> locations);
  // Syncs the current log. After OK every appended record is durable.
  absl::Status Sync();
  // EntryLogWriter::WriteBehind on the current log (a log left by a roll
  // was synced whole). Makes nothing durable.
  absl::Status WriteBehind();
  // Id of the log being written; 0 before the first append.
  uint64_t current_log_id() const;

  // The reader for `log_id` (NotFound when the log does not exist).
  absl::StatusOr<std::shared_ptr<EntryLogReader>> Reader(uint64_t log_id);
  // Removes a log that is not the current one, and syncs the directory.
  absl::Status Remove(uint64_t log_id);
  // Ids of the logs on disk, ascending.
  absl::StatusOr<std::vector<uint64_t>> ListLogs() const;
  // Bytes on disk over all logs, as last observed (cheap).
  uint64_t total_bytes() const { return total_bytes_.load(); }

  const std::string& dir() const { return dir_; }
  std::string PathOf(uint64_t log_id) const;

 private:
  EntryLogger(Env* env, std::string dir, uint64_t size_limit, uint64_t next_id,
              uint64_t existing_bytes, bool drop_synced_pages,
              uint64_t keep_cached_bytes, bool direct_io)
      : env_(env),
        dir_(std::move(dir)),
        size_limit_(size_limit),
        drop_synced_pages_(drop_synced_pages),
        keep_cached_bytes_(keep_cached_bytes),
        direct_io_(direct_io),
        next_id_(next_id),
        total_bytes_(existing_bytes) {}

  absl::Status Roll();

  // Constant after construction.
  Env* const env_;
  const std::string dir_;
  const uint64_t size_limit_;
  const bool drop_synced_pages_;
  const uint64_t keep_cached_bytes_;
  const bool direct_io_;

  // Serialised by the owner (see the class comment).
  std::unique_ptr<EntryLogWriter> writer_;
  uint64_t next_id_;

  mutable absl::Mutex readers_mu_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<EntryLogReader>> readers_
      ABSL_GUARDED_BY(readers_mu_);

  // Own synchronisation.
  std::atomic<uint64_t> total_bytes_;
  std::atomic<uint64_t> current_id_{0};
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOGGER_H_
