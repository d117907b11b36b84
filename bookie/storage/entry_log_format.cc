#include "bookie/storage/entry_log_format.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "proto/coding.h"
#include "proto/crc32c.h"

namespace bk::bookie::entrylog {

void EncodeFileHeader(uint64_t log_id, char* dst, uint32_t version) {
  std::memcpy(dst + kMagicOffset, kMagic, sizeof(kMagic));
  coding::PutFixed32BE(dst + kVersionOffset, version);
  coding::PutFixed32BE(dst + kHeaderSizeOffset, kFileHeaderSize);
  coding::PutFixed64BE(dst + kLogIdOffset, log_id);
  coding::PutFixed32BE(dst + kReservedOffset, 0);
  coding::PutFixed32BE(dst + kHeaderCrcOffset,
                       crc32c::Mask(crc32c::Value(dst, kHeaderCrcOffset)));
}

absl::StatusOr<uint64_t> DecodeFileHeader(const char* src, size_t n,
                                          uint32_t* version_out) {
  if (n < kFileHeaderSize) {
    return absl::DataLossError(
        absl::StrCat("entry log header truncated: ", n, " bytes"));
  }
  if (std::memcmp(src + kMagicOffset, kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError("entry log header: bad magic");
  }
  const uint32_t crc = coding::GetFixed32BE(src + kHeaderCrcOffset);
  if (crc32c::Unmask(crc) != crc32c::Value(src, kHeaderCrcOffset)) {
    return absl::DataLossError("entry log header: CRC mismatch");
  }
  const uint32_t version = coding::GetFixed32BE(src + kVersionOffset);
  if (version != kVersion && version != kPaddedVersion) {
    return absl::DataLossError(
        absl::StrCat("entry log header: unsupported version ", version));
  }
  if (version_out != nullptr) *version_out = version;
  if (coding::GetFixed32BE(src + kHeaderSizeOffset) != kFileHeaderSize) {
    return absl::DataLossError("entry log header: unexpected header size");
  }
  return coding::GetFixed64BE(src + kLogIdOffset);
}

void EncodeRecordHeader(uint64_t ledger_id, int64_t entry_id,
                        absl::string_view data, char* dst) {
  coding::PutFixed32BE(dst + kRecLengthOffset,
                       static_cast<uint32_t>(data.size()));
  coding::PutFixed64BE(dst + kRecLedgerOffset, ledger_id);
  coding::PutFixed64BE(dst + kRecEntryOffset, static_cast<uint64_t>(entry_id));
  uint32_t crc = crc32c::Value(dst, kRecCrcOffset);
  crc = crc32c::Extend(crc, data.data(), data.size());
  coding::PutFixed32BE(dst + kRecCrcOffset, crc32c::Mask(crc));
}

void EncodeRecordHeaderWithDataCrc(uint64_t ledger_id, int64_t entry_id,
                                   size_t data_size, uint32_t data_crc,
                                   char* dst) {
  coding::PutFixed32BE(dst + kRecLengthOffset,
                       static_cast<uint32_t>(data_size));
  coding::PutFixed64BE(dst + kRecLedgerOffset, ledger_id);
  coding::PutFixed64BE(dst + kRecEntryOffset, static_cast<uint64_t>(entry_id));
  const uint32_t head = crc32c::Value(dst, kRecCrcOffset);
  coding::PutFixed32BE(dst + kRecCrcOffset, crc32c::Mask(crc32c::Combine(
                                                head, data_crc, data_size)));
}

RecordHeader DecodeRecordHeader(const char* src) {
  RecordHeader h;
  h.length = coding::GetFixed32BE(src + kRecLengthOffset);
  h.ledger_id = coding::GetFixed64BE(src + kRecLedgerOffset);
  h.entry_id =
      static_cast<int64_t>(coding::GetFixed64BE(src + kRecEntryOffset));
  h.masked_crc = coding::GetFixed32BE(src + kRecCrcOffset);
  return h;
}

uint32_t DecodeRecordLength(const char* src) {
  return coding::GetFixed32BE(src + kRecLengthOffset);
}

bool RecordCrcMatches(const char* header_bytes, absl::string_view data) {
  uint32_t crc = crc32c::Value(header_bytes, kRecCrcOffset);
  crc = crc32c::Extend(crc, data.data(), data.size());
  return crc32c::Unmask(coding::GetFixed32BE(header_bytes + kRecCrcOffset)) ==
         crc;
}

}  // namespace bk::bookie::entrylog
