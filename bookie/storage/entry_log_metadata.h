// EntryLogMetadata: per entry log, how many record bytes each ledger has in
// it, so that GC can tell a log's live fraction without reading it. Stored as
// the value of the index's "entrylogs" column family (key: log id, u64
// big-endian), written in the same WriteBatch as the locations that it
// counts. This header owns that format.
//
//  0         8         16        20                      20+16n
//  +---------+---------+---------+-----------------------+
//  |total    |end      | n       | n x (ledger id, bytes)|
//  |bytes u64|offset u64| u32     |  u64 BE, u64 BE       |
//  +---------+---------+---------+-----------------------+
//  total bytes: record bytes (header + data) written to the log.
//  end offset:  the log's committed extent: every indexed record of the log
//               lies below it; bytes above it were never committed (a flush
//               that failed or a crash) and are garbage.

#ifndef BK_BOOKIE_STORAGE_ENTRY_LOG_METADATA_H_
#define BK_BOOKIE_STORAGE_ENTRY_LOG_METADATA_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::bookie {

struct EntryLogMetadata {
  uint64_t total_bytes = 0;
  uint64_t end_offset = 0;
  absl::flat_hash_map<uint64_t, uint64_t> ledger_bytes;

  void Add(uint64_t ledger_id, uint64_t record_bytes, uint64_t record_end) {
    total_bytes += record_bytes;
    ledger_bytes[ledger_id] += record_bytes;
    if (record_end > end_offset) end_offset = record_end;
  }
};

namespace logmeta {

inline constexpr size_t kTotalOffset = 0;
inline constexpr size_t kEndOffset = 8;
inline constexpr size_t kCountOffset = 16;
inline constexpr size_t kFixedSize = 20;
inline constexpr size_t kPairSize = 16;
static_assert(kEndOffset == kTotalOffset + 8);
static_assert(kCountOffset == kEndOffset + 8);
static_assert(kFixedSize == kCountOffset + 4);

std::string Encode(const EntryLogMetadata& meta);
absl::StatusOr<EntryLogMetadata> Decode(absl::string_view bytes);

}  // namespace logmeta
}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOG_METADATA_H_
