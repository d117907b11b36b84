#include "proto/entry_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "proto/coding.h"
#include "proto/crc32c.h"

namespace bk::entry {

size_t DigestSize(DigestType type) {
  return type == DigestType::kCrc32c ? kCrc32cDigestSize : 0;
}

size_t PackagedSize(size_t payload_size, DigestType type) {
  return kHeaderSize + payload_size + DigestSize(type);
}

void PackageFrame(const EntryHeader& header, absl::string_view payload,
                  DigestType type, char* h, char* digest_out) {
  coding::PutFixed64BE(h + kLedgerIdOffset, header.ledger_id);
  coding::PutFixed64BE(h + kEntryIdOffset,
                       static_cast<uint64_t>(header.entry_id));
  coding::PutFixed64BE(h + kLacOffset,
                       static_cast<uint64_t>(header.last_add_confirmed));
  coding::PutFixed64BE(h + kLengthOffset, header.ledger_length);
  if (type == DigestType::kCrc32c) {
    const uint32_t crc = crc32c::Extend(crc32c::Value(h, kHeaderSize),
                                        payload.data(), payload.size());
    coding::PutFixed32BE(digest_out, crc);
  }
}

void Package(const EntryHeader& header, absl::string_view payload,
             DigestType type, std::string* out) {
  const size_t start = out->size();
  out->resize(start + PackagedSize(payload.size(), type));
  char* h = out->data() + start;
  std::memcpy(h + kHeaderSize, payload.data(), payload.size());
  PackageFrame(header, payload, type, h, h + kHeaderSize + payload.size());
}

std::string Package(const EntryHeader& header, absl::string_view payload,
                    DigestType type) {
  std::string out;
  out.reserve(kHeaderSize + payload.size() + DigestSize(type));
  Package(header, payload, type, &out);
  return out;
}

absl::StatusOr<EntryHeader> ParseHeader(absl::string_view body) {
  if (body.size() < kHeaderSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "packaged entry of ", body.size(), " bytes is shorter than its ",
        kHeaderSize, "-byte header"));
  }
  EntryHeader h;
  h.ledger_id = coding::GetFixed64BE(body.data() + kLedgerIdOffset);
  h.entry_id =
      static_cast<int64_t>(coding::GetFixed64BE(body.data() + kEntryIdOffset));
  h.last_add_confirmed =
      static_cast<int64_t>(coding::GetFixed64BE(body.data() + kLacOffset));
  h.ledger_length = coding::GetFixed64BE(body.data() + kLengthOffset);
  if (h.entry_id < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("packaged entry has negative entry id ", h.entry_id));
  }
  if (h.last_add_confirmed < -1 || h.last_add_confirmed >= h.entry_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("packaged entry ", h.entry_id, " carries LAC ",
                     h.last_add_confirmed, ", which is not below it"));
  }
  return h;
}

absl::StatusOr<DecodedEntry> Decode(absl::string_view body, DigestType type,
                                    uint64_t expected_ledger_id,
                                    int64_t expected_entry_id) {
  const size_t d = DigestSize(type);
  if (body.size() < kHeaderSize + d) {
    return absl::InvalidArgumentError(absl::StrCat(
        "packaged entry of ", body.size(), " bytes is too short for header ",
        "and digest (", kHeaderSize + d, " bytes)"));
  }
  if (body.size() - kHeaderSize - d > kMaxPayloadSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "packaged entry payload of ", body.size() - kHeaderSize - d,
        " bytes exceeds the limit of ", kMaxPayloadSize));
  }
  auto header = ParseHeader(body);
  if (!header.ok()) return header.status();
  if (type == DigestType::kCrc32c) {
    const size_t covered = body.size() - d;
    uint32_t want = coding::GetFixed32BE(body.data() + covered);
    uint32_t got = crc32c::Value(body.data(), covered);
    if (want != got) {
      return absl::DataLossError(absl::StrCat(
          "digest mismatch on ledger ", header->ledger_id, " entry ",
          header->entry_id, ": stored crc32c ", want, ", computed ", got));
    }
  }
  if (header->ledger_id != expected_ledger_id ||
      (expected_entry_id >= 0 && header->entry_id != expected_entry_id)) {
    return absl::FailedPreconditionError(
        absl::StrCat("entry is ledger ", header->ledger_id, " entry ",
                     header->entry_id, ", expected ledger ", expected_ledger_id,
                     " entry ", expected_entry_id));
  }
  DecodedEntry out;
  out.header = *header;
  out.payload = body.substr(kHeaderSize, body.size() - kHeaderSize - d);
  return out;
}

}  // namespace bk::entry
