// The journal's on-disk format. This header is the only place that knows
// its offsets; the writer (journal_writer.cc) and the reader
// (journal_reader.cc) both go through the helpers below.
//
// A journal directory holds files named "<file_id as 16 hex digits>.jnl",
// ids strictly increasing, plus the checkpoint file "lastMark"
// (journal_checkpoint.h). A file is a header followed by records; it is never
// appended to again once the journal has moved to a newer file.
//
// clang-format off
// File header (kFileHeaderSize = 32 bytes):
//
//  0               8         12        16                24        28   32
//  +---------------+---------+---------+-----------------+---------+----+
//  | magic         | version | flags   | file_id         | crc     | 0  |
//  | "BKJRNL\0\1"  | u32 BE  | u32 BE  | u64 BE          | u32 BE  |    |
//  +---------------+---------+---------+-----------------+---------+----+
//  crc = Mask(CRC32C(bytes [0, 24)))
//  flags (format 3; 0 before): kFlagAlignedGroups when every group of the
//  file starts at a multiple of 4 KiB (it was padded: direct writes, reused
//  files). A reader then looks for records after a bad one byte by byte
//  only within kUnalignedScanBytes, and beyond that only at 4 KiB
//  boundaries, where any later group must start: a reused 2 GiB file's old
//  tail is judged in seconds instead of minutes.
//
// Record (kRecordHeaderSize = 28 bytes of header, then `length` bytes of
// payload; integers big-endian):
//
//  0        4        8      9       12             20             28
//  +--------+--------+------+-------+--------------+--------------+---------+
//  | crc    | length | type | 0 0 0 | ledger_id    | entry_id     | payload |
//  | u32 BE | u32 BE | u8   | pad   | u64 BE       | i64 BE       | length  |
//  |        |        |      |       |              |              | bytes   |
//  +--------+--------+------+-------+--------------+--------------+---------+
//           |<-------------------- covered by the crc --------------------->|
//
//  crc    = Mask(CRC32C(bytes [4, 28) ++ payload)) XOR salt
//  salt   = RecordSalt(version, file_id): 0 in versions 1 and 2,
//           (u32)file_id XOR 0x9e3779b9 in version 3 (see "Versions")
//  length = the payload's size; the header is not counted. At most
//           kMaxRecordPayloadSize
//  type   = a RecordType, 1..kMaxRecordType (0 is never written)
// clang-format on
//
// Type 0 is never written: a record header of all zeros is where the written
// part of a file ends (a preallocated or zero-filled tail), not corruption.
// Records are written back to back; a group commit is one run of records
// written by one write. With direct writes (journalDirectIo), and through
// the page cache in a reused file (journalReuseFiles), every group ends
// with a padding record (type 6, payload of zeros) that takes the file to the
// next multiple of 4 KiB, so that no write ever rewrites a block holding
// acknowledged records (direct) or needs a page read back from the disk
// (reused). Readers skip padding records.
//
// Versions: 1 never holds padding records; 2 may. 3 stores every record's
// crc XORed with the salt of its file, RecordSalt(file_id), so that a
// recycled file (journalReuseFiles) never passes off a record of its
// previous life as one of this one: past the last record written since the
// file was reused, the old records fail the check like any torn tail. All
// three are read.

#ifndef BK_BOOKIE_JOURNAL_JOURNAL_FORMAT_H_
#define BK_BOOKIE_JOURNAL_JOURNAL_FORMAT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "proto/entry_format.h"

namespace bk::bookie::journal_format {

// --- file header ---
inline constexpr char kMagic[8] = {'B', 'K', 'J', 'R', 'N', 'L', '\0', '\1'};
inline constexpr uint32_t kVersion = 3;  // what this build writes
inline constexpr uint32_t kMinReadableVersion = 1;
inline constexpr size_t kMagicOffset = 0;
inline constexpr size_t kVersionOffset = 8;
inline constexpr size_t kFlagsOffset = 12;
inline constexpr size_t kFileIdOffset = 16;
inline constexpr size_t kFileHeaderCrcOffset = 24;
inline constexpr size_t kFileHeaderSize = 32;
inline constexpr uint32_t kFlagAlignedGroups = 1;
inline constexpr uint64_t kGroupAlignment = 4096;
// Past any group: journalBufferedWritesThreshold (at most 8 MiB) plus one
// record of the largest size (16 MiB and a header).
inline constexpr uint64_t kUnalignedScanBytes = uint64_t{32} << 20;

static_assert(sizeof(kMagic) == kVersionOffset - kMagicOffset);
static_assert(kFlagsOffset == kVersionOffset + 4);
static_assert(kFileIdOffset == kFlagsOffset + 4);
static_assert(kFileHeaderCrcOffset == kFileIdOffset + 8);
static_assert(kFileHeaderSize >= kFileHeaderCrcOffset + 4);

// --- record ---
inline constexpr size_t kRecordCrcOffset = 0;
inline constexpr size_t kRecordLengthOffset = 4;
inline constexpr size_t kRecordTypeOffset = 8;
inline constexpr size_t kRecordLedgerIdOffset = 12;
inline constexpr size_t kRecordEntryIdOffset = 20;
inline constexpr size_t kRecordHeaderSize = 28;
// The CRC covers the header from here on, then the payload.
inline constexpr size_t kRecordCrcCoverageOffset = kRecordLengthOffset;

static_assert(kRecordLengthOffset == kRecordCrcOffset + 4);
static_assert(kRecordTypeOffset == kRecordLengthOffset + 4);
static_assert(kRecordLedgerIdOffset == kRecordTypeOffset + 4);  // 3 pad bytes
static_assert(kRecordEntryIdOffset == kRecordLedgerIdOffset + 8);
static_assert(kRecordHeaderSize == kRecordEntryIdOffset + 8);

// A record's payload is at most a packaged entry of the largest payload plus
// slack for its header and digest. Anything longer is a corrupt length.
inline constexpr size_t kMaxRecordPayloadSize =
    entry::kMaxPayloadSize + entry::kHeaderSize + 1024;
static_assert(kMaxRecordPayloadSize < (uint64_t{1} << 32));

// What a record says happened to a ledger. Values are on disk: never reuse.
enum class RecordType : uint8_t {
  kZero = 0,         // never written; marks the unwritten tail
  kEntry = 1,        // payload: a packaged entry (proto/entry_format.h)
  kFence = 2,        // the ledger was fenced; payload empty
  kMasterKey = 3,    // the ledger's master key was set; payload: the key
  kExplicitLac = 4,  // payload: the explicit LAC as sent by the client
  kForce = 5,        // ForceLedger barrier; payload empty, nothing to replay
  kPadding = 6,      // payload: zeros up to an alignment boundary; skipped
};
inline constexpr uint8_t kMaxRecordType = 6;

inline bool ValidRecordType(uint8_t t) { return t >= 1 && t <= kMaxRecordType; }

// --- file names ---
inline constexpr char kFileSuffix[] = ".jnl";
std::string FileName(uint64_t file_id);
// Parses a name made by FileName; false for any other name.
bool ParseFileName(absl::string_view name, uint64_t* file_id);

// clang-format off
// --- checkpoint file "lastMark" (kMarkFileSize = 28 bytes) ---
//
//  0               8                 16                24        28
//  +---------------+-----------------+-----------------+---------+
//  | "BKJMARK\1"   | file_id         | offset          | crc     |
//  |               | u64 BE          | u64 BE          | u32 BE  |
//  +---------------+-----------------+-----------------+---------+
//  crc = Mask(CRC32C(bytes [0, 24))). Replaced atomically (temp, fsync,
//  rename, fsync dir), so a reader sees the old or the new mark.
// clang-format on
inline constexpr char kMarkFileName[] = "lastMark";
inline constexpr char kMarkMagic[8] = {'B', 'K', 'J', 'M', 'A', 'R', 'K', '\1'};
inline constexpr size_t kMarkFileIdOffset = 8;
inline constexpr size_t kMarkOffsetOffset = 16;
inline constexpr size_t kMarkCrcOffset = 24;
inline constexpr size_t kMarkFileSize = 28;
static_assert(kMarkFileIdOffset == sizeof(kMarkMagic));
static_assert(kMarkOffsetOffset == kMarkFileIdOffset + 8);
static_assert(kMarkCrcOffset == kMarkOffsetOffset + 8);
static_assert(kMarkFileSize == kMarkCrcOffset + 4);

std::string EncodeMark(uint64_t file_id, uint64_t offset);
// False when `data` is not a well-formed mark (size, magic or CRC).
bool DecodeMark(absl::string_view data, uint64_t* file_id, uint64_t* offset);

// --- encoding ---
using FileHeader = std::array<char, kFileHeaderSize>;
using RecordHeader = std::array<char, kRecordHeaderSize>;

FileHeader EncodeFileHeader(uint64_t file_id, uint32_t flags = 0);

struct DecodedFileHeader {
  bool magic_ok = false;
  bool crc_ok = false;
  uint32_t version = 0;
  uint32_t flags = 0;
  uint64_t file_id = 0;
};
// REQUIRES: data.size() >= kFileHeaderSize.
DecodedFileHeader DecodeFileHeader(absl::string_view data);

// Fills *out with the header of a record carrying `payload`, CRC included.
void EncodeRecordHeader(RecordType type, uint64_t ledger_id, int64_t entry_id,
                        absl::string_view payload, RecordHeader* out);
// The same bytes as EncodeRecordHeader, for a payload of `payload_size`
// bytes whose crc32c::Value is `payload_crc`: the record CRC is combined
// from the header's and the payload's (crc32c::Combine), not recomputed
// over the payload. REQUIRES: payload_crc is the CRC of the very bytes that
// will be written.
void EncodeRecordHeaderWithPayloadCrc(RecordType type, uint64_t ledger_id,
                                      int64_t entry_id, size_t payload_size,
                                      uint32_t payload_crc, RecordHeader* out);

// The salt of the records of file `file_id` written with format `version`:
// 0 before version 3. Distinct for any two ids less than 2^32 apart (ids
// grow by one per file), so a recycled file's old records never match.
uint32_t RecordSalt(uint32_t version, uint64_t file_id);
// XORs `salt` into the crc of the encoded record header at `header`.
void SaltRecordHeader(uint32_t salt, char* header);

// The size of the padding record that takes a file of `size` bytes to the
// next multiple of `alignment` (a power of two): 0 when already aligned,
// otherwise at least kRecordHeaderSize (a gap too small for a header is
// padded to the boundary after the next).
size_t PaddingFor(uint64_t size, size_t alignment);
// Writes a padding record of exactly `total` bytes (>= kRecordHeaderSize)
// at `dst`: header (salted with `salt`), then zeros.
void EncodePadding(size_t total, uint32_t salt, char* dst);

struct DecodedRecordHeader {
  uint32_t masked_crc = 0;
  uint32_t length = 0;
  uint8_t type = 0;
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  bool all_zero = false;  // the whole header is zero bytes
};
// REQUIRES: data.size() >= kRecordHeaderSize.
DecodedRecordHeader DecodeRecordHeader(absl::string_view data);

// True when header bytes [0, kRecordHeaderSize) and `payload` match the CRC
// stored with `salt`.
bool RecordCrcMatches(absl::string_view header, absl::string_view payload,
                      uint32_t salt);

}  // namespace bk::bookie::journal_format

#endif  // BK_BOOKIE_JOURNAL_JOURNAL_FORMAT_H_
