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
//
// Version 2 (logs written with O_DIRECT, entryLogDirectIo): the same
// header and records, but every write is a whole number of
// kPaddingAlignment blocks, so a sync that ends inside a block pads the
// rest of it with zero bytes (and the next block too when fewer than 4
// bytes are left, so the padding always holds a whole length field). The
// header block is padded the same way: the first record starts at
// kPaddingAlignment. A record's length is never 0 (a packaged entry has a
// header), so a zero length at a record boundary of a version 2 log means
// padding: the next record starts at the next multiple of
// kPaddingAlignment above it. In a version 1 log a zero length is
// corruption, as before. A bookie that knows only version 1 refuses a
// version 2 log by its header ("unsupported version 2") rather than
// misreading it.

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
inline constexpr uint32_t kPaddedVersion = 2;
inline constexpr uint64_t kPaddingAlignment = 4096;

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
// `version`: kVersion or kPaddedVersion.
void EncodeFileHeader(uint64_t log_id, char* dst, uint32_t version = kVersion);
// Checks a file header; returns the log id or DataLoss saying what is wrong.
// `version`, when given, receives the header's version (1 or 2).
absl::StatusOr<uint64_t> DecodeFileHeader(const char* src, size_t n,
                                          uint32_t* version = nullptr);

// Where the record after padding at `offset` starts in a version 2 log: the
// next multiple of kPaddingAlignment above `offset`.
inline uint64_t AfterPadding(uint64_t offset) {
  return (offset / kPaddingAlignment + 1) * kPaddingAlignment;
}

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
// The length field alone (src[0, 4)): 0 marks padding in a version 2 log.
uint32_t DecodeRecordLength(const char* src);
// True when `data` matches the CRC in `header_bytes` (a full record header).
bool RecordCrcMatches(const char* header_bytes, absl::string_view data);

}  // namespace bk::bookie::entrylog

#endif  // BK_BOOKIE_STORAGE_ENTRY_LOG_FORMAT_H_
