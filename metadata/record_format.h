// The bytes of a stored record: a 4-byte tag naming the record kind and its
// format version, then the protobuf binary of the record.
//
//   +---------+---------+---------+---------+--------------------------+
//   |  'B'    |  'K'    |  kind   | version |  protobuf message bytes  |
//   +---------+---------+---------+---------+--------------------------+
//     kind: 'L' ledger metadata, 'B' bookie service info, 'C' cookie,
//           'G' bookie isolation groups
//     version: '1'
//
// The tag lets a reader tell a record from stray bytes (protobuf alone parses
// many random strings without error) and leaves room for a future format, as
// BookKeeper's "BookieMetadataFormatVersion" header does. Records are checked
// right before they are written and right after they are read: a record that
// fails the check is kInvalidArgument on write and kDataLoss on read.

#ifndef BK_METADATA_RECORD_FORMAT_H_
#define BK_METADATA_RECORD_FORMAT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "metadata/metadata_store.h"
#include "proto/metadata.pb.h"

namespace bk::metadata {

inline constexpr size_t kRecordTagSize = 4;

// Checks the invariants of ledger metadata: 1 <= ack <= write <= ensemble,
// at least one segment, each with `ensemble_size` bookies, first entry ids
// ascending from 0.
absl::Status ValidateLedgerMetadata(const proto::LedgerMetadata& md);

absl::StatusOr<std::string> EncodeLedger(const proto::LedgerMetadata& md);
// `where` names the record in errors (for example the znode path).
absl::StatusOr<proto::LedgerMetadata> DecodeLedger(const std::string& bytes,
                                                   const std::string& where);

absl::StatusOr<std::string> EncodeBookie(const proto::BookieServiceInfo& info);
absl::StatusOr<proto::BookieServiceInfo> DecodeBookie(const std::string& bytes,
                                                      const std::string& where);

// Bookie groups are text, not protobuf, after the tag: the bookie id, a
// newline, the group names joined by ','. Valid: a valid bookie id; names
// non-empty, without '/', ',' or blanks, sorted and distinct.
absl::Status ValidateBookieGroups(const BookieGroups& groups);
absl::StatusOr<std::string> EncodeBookieGroups(const BookieGroups& groups);
absl::StatusOr<BookieGroups> DecodeBookieGroups(const std::string& bytes,
                                                const std::string& where);

absl::StatusOr<std::string> EncodeCookie(const proto::Cookie& cookie);
absl::StatusOr<proto::Cookie> DecodeCookie(const std::string& bytes,
                                           const std::string& where);

}  // namespace bk::metadata

#endif  // BK_METADATA_RECORD_FORMAT_H_
