// The packaged entry: what a client sends to a bookie, what the bookie
// stores in its journal and entry logs, and what it serves back.
//
//  0         8         16        24        32                32+n      32+n+d
//  +---------+---------+---------+---------+-----------------+---------+
//  |ledger_id|entry_id |   lac   | length  |    payload      | digest  |
//  |  u64 BE | i64 BE  | i64 BE  |  u64 BE |    n bytes      | d bytes |
//  +---------+---------+---------+---------+-----------------+---------+
//
//  lac     the writer's last add confirmed when it sent this entry (-1 none)
//  length  the ledger's total payload bytes up to and including this entry
//  digest  CRC32C (d = 4, big-endian, unmasked) of bytes [0, 32+n), or
//          nothing (d = 0) for DigestType::kDummy
//
// The bookie parses only the header (ParseHeader). Clients verify the digest
// of every entry they read (Decode). This header is the only place that
// knows these offsets.

#ifndef BK_PROTO_ENTRY_FORMAT_H_
#define BK_PROTO_ENTRY_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bk::entry {

// Values match proto::DigestType in metadata.proto.
enum class DigestType : int { kCrc32c = 0, kDummy = 1 };

inline constexpr size_t kLedgerIdOffset = 0;
inline constexpr size_t kEntryIdOffset = 8;
inline constexpr size_t kLacOffset = 16;
inline constexpr size_t kLengthOffset = 24;
inline constexpr size_t kHeaderSize = 32;
inline constexpr size_t kCrc32cDigestSize = 4;
// An entry's payload is at most this large (BookKeeper's default frame limit
// is 5 MiB; we allow a little more). Larger packages are rejected.
inline constexpr size_t kMaxPayloadSize = 16u << 20;

static_assert(kEntryIdOffset == kLedgerIdOffset + 8);
static_assert(kLacOffset == kEntryIdOffset + 8);
static_assert(kLengthOffset == kLacOffset + 8);
static_assert(kHeaderSize == kLengthOffset + 8);

struct EntryHeader {
  uint64_t ledger_id = 0;
  int64_t entry_id = 0;
  int64_t last_add_confirmed = -1;
  uint64_t ledger_length = 0;
};

struct DecodedEntry {
  EntryHeader header;
  absl::string_view payload;  // points into the buffer passed to Decode
};

size_t DigestSize(DigestType type);

// Appends the packaged entry to *out. REQUIRES: payload.size() <=
// kMaxPayloadSize.
void Package(const EntryHeader& header, absl::string_view payload,
             DigestType type, std::string* out);
std::string Package(const EntryHeader& header, absl::string_view payload,
                    DigestType type);
// The packaged entry's size for a payload of `payload_size` bytes.
size_t PackagedSize(size_t payload_size, DigestType type);
// The packaged entry's parts around the payload, for a sender that puts the
// payload on the wire from its own buffer: writes the header
// (kHeaderSize bytes) to `header_out` and the digest (DigestSize(type)
// bytes, none for kNone) to `digest_out`; header_out + payload + digest_out
// is what Package makes. Reads the payload once (the digest).
void PackageFrame(const EntryHeader& header, absl::string_view payload,
                  DigestType type, char* header_out, char* digest_out);

// Reads the header only. InvalidArgument if `body` is shorter than a header
// or the ids are out of range (negative entry id other than -1 LAC etc.).
absl::StatusOr<EntryHeader> ParseHeader(absl::string_view body);

// Parses and verifies a packaged entry read back from a bookie:
//   InvalidArgument - too short, too long, or malformed header;
//   DataLoss        - digest mismatch;
//   FailedPrecondition - ids differ from the expected ones (a bookie served
//                        the wrong entry).
// Pass expected_entry_id < 0 to skip the entry id check.
absl::StatusOr<DecodedEntry> Decode(absl::string_view body, DigestType type,
                                    uint64_t expected_ledger_id,
                                    int64_t expected_entry_id);

}  // namespace bk::entry

#endif  // BK_PROTO_ENTRY_FORMAT_H_
