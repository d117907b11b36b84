#include "bookie/journal/journal_format.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "proto/coding.h"
#include "proto/crc32c.h"

namespace bk::bookie::journal_format {

std::string FileName(uint64_t file_id) {
  return absl::StrFormat("%016x%s", file_id, kFileSuffix);
}

bool ParseFileName(absl::string_view name, uint64_t* file_id) {
  constexpr size_t kHexDigits = 16;
  const absl::string_view suffix(kFileSuffix);
  if (name.size() != kHexDigits + suffix.size()) return false;
  if (name.substr(kHexDigits) != suffix) return false;
  uint64_t id = 0;
  for (char c : name.substr(0, kHexDigits)) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      return false;
    }
    id = (id << 4) | static_cast<uint64_t>(v);
  }
  *file_id = id;
  return true;
}

FileHeader EncodeFileHeader(uint64_t file_id, uint32_t flags) {
  FileHeader h{};
  std::memcpy(h.data() + kMagicOffset, kMagic, sizeof(kMagic));
  coding::PutFixed32BE(h.data() + kVersionOffset, kVersion);
  coding::PutFixed32BE(h.data() + kFlagsOffset, flags);
  coding::PutFixed64BE(h.data() + kFileIdOffset, file_id);
  coding::PutFixed32BE(
      h.data() + kFileHeaderCrcOffset,
      crc32c::Mask(crc32c::Value(h.data(), kFileHeaderCrcOffset)));
  return h;
}

DecodedFileHeader DecodeFileHeader(absl::string_view data) {
  DecodedFileHeader d;
  d.magic_ok =
      std::memcmp(data.data() + kMagicOffset, kMagic, sizeof(kMagic)) == 0;
  d.version = coding::GetFixed32BE(data.data() + kVersionOffset);
  d.flags = coding::GetFixed32BE(data.data() + kFlagsOffset);
  d.file_id = coding::GetFixed64BE(data.data() + kFileIdOffset);
  const uint32_t stored =
      coding::GetFixed32BE(data.data() + kFileHeaderCrcOffset);
  d.crc_ok = crc32c::Unmask(stored) ==
             crc32c::Value(data.data(), kFileHeaderCrcOffset);
  return d;
}

namespace {

// Every field but the CRC.
void EncodeRecordFields(RecordType type, uint64_t ledger_id, int64_t entry_id,
                        size_t payload_size, char* h) {
  coding::PutFixed32BE(h + kRecordLengthOffset,
                       static_cast<uint32_t>(payload_size));
  h[kRecordTypeOffset] = static_cast<char>(type);
  h[kRecordTypeOffset + 1] = h[kRecordTypeOffset + 2] =
      h[kRecordTypeOffset + 3] = 0;
  coding::PutFixed64BE(h + kRecordLedgerIdOffset, ledger_id);
  coding::PutFixed64BE(h + kRecordEntryIdOffset,
                       static_cast<uint64_t>(entry_id));
}

}  // namespace

void EncodeRecordHeaderWithPayloadCrc(RecordType type, uint64_t ledger_id,
                                      int64_t entry_id, size_t payload_size,
                                      uint32_t payload_crc, RecordHeader* out) {
  char* h = out->data();
  EncodeRecordFields(type, ledger_id, entry_id, payload_size, h);
  const uint32_t head =
      crc32c::Value(h + kRecordCrcCoverageOffset,
                    kRecordHeaderSize - kRecordCrcCoverageOffset);
  coding::PutFixed32BE(
      h + kRecordCrcOffset,
      crc32c::Mask(crc32c::Combine(head, payload_crc, payload_size)));
}

void EncodeRecordHeader(RecordType type, uint64_t ledger_id, int64_t entry_id,
                        absl::string_view payload, RecordHeader* out) {
  char* h = out->data();
  coding::PutFixed32BE(h + kRecordLengthOffset,
                       static_cast<uint32_t>(payload.size()));
  h[kRecordTypeOffset] = static_cast<char>(type);
  h[kRecordTypeOffset + 1] = h[kRecordTypeOffset + 2] =
      h[kRecordTypeOffset + 3] = 0;
  coding::PutFixed64BE(h + kRecordLedgerIdOffset, ledger_id);
  coding::PutFixed64BE(h + kRecordEntryIdOffset,
                       static_cast<uint64_t>(entry_id));
  uint32_t crc = crc32c::Value(h + kRecordCrcCoverageOffset,
                               kRecordHeaderSize - kRecordCrcCoverageOffset);
  crc = crc32c::Extend(crc, payload.data(), payload.size());
  coding::PutFixed32BE(h + kRecordCrcOffset, crc32c::Mask(crc));
}

uint32_t RecordSalt(uint32_t version, uint64_t file_id) {
  if (version < 3) return 0;
  // Never 0 for the ids a journal reaches (it would take 2^31 files).
  return static_cast<uint32_t>(file_id) ^ 0x9e3779b9u;
}

void SaltRecordHeader(uint32_t salt, char* header) {
  coding::PutFixed32BE(header + kRecordCrcOffset,
                       coding::GetFixed32BE(header + kRecordCrcOffset) ^ salt);
}

size_t PaddingFor(uint64_t size, size_t alignment) {
  const size_t rem = static_cast<size_t>(size & (alignment - 1));
  if (rem == 0) return 0;
  size_t pad = alignment - rem;
  if (pad < kRecordHeaderSize) pad += alignment;
  return pad;
}

void EncodePadding(size_t total, uint32_t salt, char* dst) {
  const size_t payload = total - kRecordHeaderSize;
  std::memset(dst + kRecordHeaderSize, 0, payload);
  RecordHeader h;
  EncodeRecordHeader(RecordType::kPadding, 0, -1,
                     absl::string_view(dst + kRecordHeaderSize, payload), &h);
  SaltRecordHeader(salt, h.data());
  std::memcpy(dst, h.data(), h.size());
}

DecodedRecordHeader DecodeRecordHeader(absl::string_view data) {
  DecodedRecordHeader d;
  const char* h = data.data();
  d.masked_crc = coding::GetFixed32BE(h + kRecordCrcOffset);
  d.length = coding::GetFixed32BE(h + kRecordLengthOffset);
  d.type = static_cast<uint8_t>(h[kRecordTypeOffset]);
  d.ledger_id = coding::GetFixed64BE(h + kRecordLedgerIdOffset);
  d.entry_id =
      static_cast<int64_t>(coding::GetFixed64BE(h + kRecordEntryIdOffset));
  d.all_zero = true;
  for (size_t i = 0; i < kRecordHeaderSize; ++i) {
    if (h[i] != 0) {
      d.all_zero = false;
      break;
    }
  }
  return d;
}

bool RecordCrcMatches(absl::string_view header, absl::string_view payload,
                      uint32_t salt) {
  uint32_t crc = crc32c::Value(header.data() + kRecordCrcCoverageOffset,
                               kRecordHeaderSize - kRecordCrcCoverageOffset);
  crc = crc32c::Extend(crc, payload.data(), payload.size());
  return (crc32c::Mask(crc) ^ salt) ==
         coding::GetFixed32BE(header.data() + kRecordCrcOffset);
}

std::string EncodeMark(uint64_t file_id, uint64_t offset) {
  std::string out(kMarkFileSize, '\0');
  std::memcpy(out.data(), kMarkMagic, sizeof(kMarkMagic));
  coding::PutFixed64BE(out.data() + kMarkFileIdOffset, file_id);
  coding::PutFixed64BE(out.data() + kMarkOffsetOffset, offset);
  coding::PutFixed32BE(out.data() + kMarkCrcOffset,
                       crc32c::Mask(crc32c::Value(out.data(), kMarkCrcOffset)));
  return out;
}

bool DecodeMark(absl::string_view data, uint64_t* file_id, uint64_t* offset) {
  if (data.size() != kMarkFileSize) return false;
  if (std::memcmp(data.data(), kMarkMagic, sizeof(kMarkMagic)) != 0) {
    return false;
  }
  const uint32_t stored = coding::GetFixed32BE(data.data() + kMarkCrcOffset);
  if (crc32c::Unmask(stored) != crc32c::Value(data.data(), kMarkCrcOffset)) {
    return false;
  }
  *file_id = coding::GetFixed64BE(data.data() + kMarkFileIdOffset);
  *offset = coding::GetFixed64BE(data.data() + kMarkOffsetOffset);
  return true;
}

}  // namespace bk::bookie::journal_format
