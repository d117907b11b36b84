// The entry log file format. This header is the only place that knows its
// offsets; the writer, the reader and the scanner include it.
//
// An entry log is a file "<log id as 16 hex digits>.log" in a ledger
// directory. It starts with a fixed header, followed by records appended
// back to back. Integers are big-endian (proto/coding.h).
//
// File header (kFileHeaderSize = 32 bytes):
//
//  0        8        12       16       24       28       32
//  +--------+--------+--------+--------+--------+--------+
//  | magic  |version | hdrsize| log id |reserved|hdr crc |
//  | 8 bytes|  u32   |  u32   |  u64   |  u32   |  u32   |
//  +--------+--------+--------+--------+--------+--------+
//  hdr crc: masked CRC32C of bytes [0, 28).
//
// Record (kRecordHeaderSize = 24 bytes + length):
//
//  0        4          12         20       24            24+length
//  +--------+----------+----------+--------+-------------+
//  | length |ledger id | entry id |  crc   |    data     |
//  |  u32   |   u64    |   i64    |  u32   | length bytes|
//  +--------+----------+----------+--------+-------------+
//  data: the packaged entry exactly as received (opaque here).
//  crc:  masked CRC32C of bytes [0, 20) of the record header followed by
//        the data, so a record that moved or whose ids were damaged fails
//        its check as surely as one whose data was.
//
// A location in the index is (log id, offset of the record header).
// Records are only ever appended; a log is never rewritten in place.

#ifndef BK_BOOKIE_STORAGE_ENTRY_LOG_FORMAT_H_
#define BK_BOOKIE_STORAGE_ENTRY_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "proto/entry_format.h"

namespace bk::bookie::entrylog {

inline constexpr char kMagic[8] = {'B', 'K', 'E', 'N', 'T', 'L', 'O', 'G'};
inline constexpr uint32_t kVersion = 1;

inline constexpr size_t kMagicOffset = 0;
inline constexpr size_t kVersionOffset = 8;
inline constexpr size_t kHeaderSizeOffset = 12;
inline constexpr size_t kLogIdOffset = 16;
inline constexpr size_t kReservedOffset = 24;
inline constexpr size_t kHeaderCrcOffset = 28;
inline constexpr size_t kFileHeaderSize = 32;

static_assert(kVersionOffset == kMagicOffset + sizeof(kMagic));
static_assert(kHeaderSizeOffset == kVersionOffset + 4);
static_assert(kLogIdOffset == kHeaderSizeOffset + 4);
static_assert(kReservedOffset == kLogIdOffset + 8);
static_assert(kHeaderCrcOffset == kReservedOffset + 4);
static_assert(kFileHeaderSize == kHeaderCrcOffset + 4);

inline constexpr size_t kRecLengthOffset = 0;
inline constexpr size_t kRecLedgerOffset = 4;
inline constexpr size_t kRecEntryOffset = 12;
inline constexpr size_t kRecCrcOffset = 20;
inline constexpr size_t kRecordHeaderSize = 24;

static_assert(kRecLedgerOffset == kRecLengthOffset + 4);
static_assert(kRecEntryOffset == kRecLedgerOffset + 8);
static_assert(kRecCrcOffset == kRecEntryOffset + 8);
static_assert(kRecordHeaderSize == kRecCrcOffset + 4);

// The largest data a record may carry: a maximal packaged entry (header,
// payload, digest). A length field above it is corruption, not an entry.
inline constexpr uint32_t kMaxRecordDataSize =
    static_cast<uint32_t>(entry::kHeaderSize + entry::kMaxPayloadSize + 64);
static_assert(kMaxRecordDataSize > entry::kMaxPayloadSize);

inline std::string LogFileName(uint64_t log_id) {
  return absl::StrFormat("%016x.log", log_id);
}

// Encodes the file header of log `log_id` into dst[0, kFileHeaderSize).
void EncodeFileHeader(uint64_t log_id, char* dst);
// Checks a file header; returns the log id or DataLoss saying what is wrong.
absl::StatusOr<uint64_t> DecodeFileHeader(const char* src, size_t n);

// Encodes a record header for `data` into dst[0, kRecordHeaderSize).
void EncodeRecordHeader(uint64_t ledger_id, int64_t entry_id,
                        absl::string_view data, char* dst);

// The same bytes for data of `data_size` bytes whose crc32c::Value is
// `data_crc` (crc32c::Combine instead of a pass over the data). REQUIRES:
// data_crc is the CRC of the very bytes written after the header.
void EncodeRecordHeaderWithDataCrc(uint64_t ledger_id, int64_t entry_id,
                                   size_t data_size, uint32_t data_crc,
                                   char* dst);

struct RecordHeader {
  uint32_t length = 0;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  uint32_t masked_crc = 0;
};
RecordHeader DecodeRecordHeader(const char* src);
// True when `data` matches the CRC in `header_bytes` (a full record header).
bool RecordCrcMatches(const char* header_bytes, absl::string_view data);

}  // namespace bk::bookie::entrylog

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOG_FORMAT_H_
