#include "bookie/journal/journal_reader.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bk::bookie {

namespace jf = journal_format;

namespace {
// Read granularity; a record larger than this is fetched whole.
constexpr size_t kWindowBytes = 1 << 20;
}  // namespace

absl::StatusOr<std::unique_ptr<JournalFileReader>> JournalFileReader::Open(
    Env* env, const std::string& path, uint64_t expected_file_id,
    uint64_t start_offset, const JournalReaderOptions& options) {
  auto file = env->NewRandomAccessFile(path);
  if (!file.ok()) return file.status();
  auto size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::unique_ptr<JournalFileReader> r(new JournalFileReader(
      std::move(*file), *size, expected_file_id, options));
  r->report_.path = path;
  r->report_.file_size = *size;
  absl::Status s = r->ReadHeader(start_offset);
  if (!s.ok()) return s;
  return r;
}

JournalFileReader::JournalFileReader(std::unique_ptr<RandomAccessFile> file,
                                     uint64_t size, uint64_t expected_file_id,
                                     const JournalReaderOptions& options)
    : file_(std::move(file)),
      size_(size),
      expected_file_id_(expected_file_id),
      options_(options) {}

absl::Status JournalFileReader::ReadHeader(uint64_t start_offset) {
  std::string reason;
  uint32_t version = 0;
  uint32_t flags = 0;
  std::optional<uint64_t> header_intact_id;
  if (size_ < jf::kFileHeaderSize) {
    reason = absl::StrCat("file shorter than its header (", size_, " bytes)");
  } else {
    auto data = Fetch(0, jf::kFileHeaderSize);
    if (!data.ok()) return data.status();
    const jf::DecodedFileHeader h = jf::DecodeFileHeader(*data);
    version = h.version;
    flags = h.flags;
    if (!h.crc_ok) {
      reason = "file header checksum mismatch";
    } else if (!h.magic_ok) {
      reason = "bad magic: not a journal file";
    } else if (h.version < jf::kMinReadableVersion ||
               h.version > jf::kVersion) {
      return error_ = absl::FailedPreconditionError(absl::StrCat(
                 "journal file ", report_.path, " has format version ",
                 h.version, "; this build reads versions ",
                 jf::kMinReadableVersion, " to ", jf::kVersion));
    } else if (h.file_id != expected_file_id_) {
      header_intact_id = h.file_id;
      reason = absl::StrCat("header names file id ", h.file_id,
                            ", the file name says ", expected_file_id_);
    }
  }
  if (reason.empty()) {
    salts_ = {jf::RecordSalt(version, expected_file_id_)};
    aligned_groups_ = version >= 3 && (flags & jf::kFlagAlignedGroups) != 0;
    pos_ = std::max<uint64_t>(start_offset, jf::kFileHeaderSize);
    if (pos_ > size_) {
      // The checkpoint passed bytes that a crash dropped before they were
      // synced; the storage holds them, so nothing here is missing.
      pos_ = size_;
    }
    report_.valid_end = pos_;
    return absl::OkStatus();
  }
  report_.valid_end = 0;
  // Without a header the format is unknown: a record valid as this build
  // writes it or as versions 1 and 2 did proves the file was in use, and so
  // does one valid for the id an intact header names (a misplaced file).
  salts_ = {jf::RecordSalt(jf::kVersion, expected_file_id_), 0};
  if (header_intact_id.has_value()) {
    salts_.push_back(jf::RecordSalt(version, *header_intact_id));
  }
  absl::Status s = HandleInvalid(0, reason);
  if (s.ok() && done_) report_.header_torn = true;
  return s;
}

absl::StatusOr<absl::string_view> JournalFileReader::Fetch(uint64_t offset,
                                                           size_t n) {
  if (offset >= size_) return absl::string_view();
  n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
  if (offset >= buf_offset_ && offset + n <= buf_offset_ + buf_.size()) {
    return absl::string_view(buf_.data() + (offset - buf_offset_), n);
  }
  const size_t want = static_cast<size_t>(
      std::min<uint64_t>(std::max(n, kWindowBytes), size_ - offset));
  buf_.resize(want);
  size_t done = 0;
  while (done < want) {
    auto got = file_->Read(offset + done, want - done, buf_.data() + done);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    done += *got;
  }
  buf_.resize(done);
  buf_offset_ = offset;
  return absl::string_view(buf_.data(), std::min(n, done));
}

absl::StatusOr<bool> JournalFileReader::RecordAt(uint64_t offset,
                                                 JournalRecordView* record,
                                                 std::string* reason) {
  auto head = Fetch(offset, jf::kRecordHeaderSize);
  if (!head.ok()) return head.status();
  if (head->size() < jf::kRecordHeaderSize) {
    *reason = absl::StrCat("record header cut short (", head->size(), " of ",
                           jf::kRecordHeaderSize, " bytes)");
    return false;
  }
  const jf::DecodedRecordHeader h = jf::DecodeRecordHeader(*head);
  if (h.all_zero) {
    *reason = "zero-filled region";
    return false;
  }
  if (!jf::ValidRecordType(h.type) || (*head)[jf::kRecordTypeOffset + 1] != 0 ||
      (*head)[jf::kRecordTypeOffset + 2] != 0 ||
      (*head)[jf::kRecordTypeOffset + 3] != 0) {
    *reason = absl::StrCat("bad record type ", static_cast<int>(h.type));
    return false;
  }
  if (h.length > jf::kMaxRecordPayloadSize) {
    *reason = absl::StrCat("bad record length ", h.length);
    return false;
  }
  const uint64_t end = offset + jf::kRecordHeaderSize + h.length;
  if (end > size_) {
    *reason = absl::StrCat("record of ", h.length,
                           " payload bytes runs past the end of the file");
    return false;
  }
  auto whole = Fetch(offset, jf::kRecordHeaderSize + h.length);
  if (!whole.ok()) return whole.status();
  const absl::string_view payload = whole->substr(jf::kRecordHeaderSize);
  bool matches = false;
  for (uint32_t salt : salts_) {
    matches = matches || jf::RecordCrcMatches(*whole, payload, salt);
  }
  if (!matches) {
    *reason = "record checksum mismatch";
    return false;
  }
  record->type = static_cast<jf::RecordType>(h.type);
  record->ledger_id = h.ledger_id;
  record->entry_id = h.entry_id;
  record->payload = payload;
  record->offset = offset;
  record->end_offset = end;
  return true;
}

absl::StatusOr<std::optional<uint64_t>> JournalFileReader::ClaimedEnd(
    uint64_t offset) {
  auto head = Fetch(offset, jf::kRecordHeaderSize);
  if (!head.ok()) return head.status();
  if (head->size() < jf::kRecordHeaderSize) return std::optional<uint64_t>();
  const jf::DecodedRecordHeader h = jf::DecodeRecordHeader(*head);
  if (h.all_zero || !jf::ValidRecordType(h.type) ||
      (*head)[jf::kRecordTypeOffset + 1] != 0 ||
      (*head)[jf::kRecordTypeOffset + 2] != 0 ||
      (*head)[jf::kRecordTypeOffset + 3] != 0 ||
      h.length > jf::kMaxRecordPayloadSize) {
    return std::optional<uint64_t>();
  }
  const uint64_t end = offset + jf::kRecordHeaderSize + h.length;
  if (end > size_) return std::optional<uint64_t>();
  return std::optional<uint64_t>(end);
}

absl::StatusOr<std::optional<uint64_t>> JournalFileReader::FindValidRecordAfter(
    uint64_t offset) {
  JournalRecordView scratch;
  std::string ignored;
  // The record's own end, when its header is plausible and the end is the
  // file's or a valid record's: then a record found inside it counts only
  // if valid records lead from it exactly to that end (so its header was
  // what was damaged, and the records after it are real).
  std::optional<uint64_t> bound;
  auto claimed = ClaimedEnd(offset);
  if (!claimed.ok()) return claimed.status();
  if (claimed->has_value()) {
    const uint64_t end = **claimed;
    bool confirmed = end == size_;
    if (!confirmed) {
      auto found = RecordAt(end, &scratch, &ignored);
      if (!found.ok()) return found.status();
      confirmed = *found && scratch.type != jf::RecordType::kPadding;
    }
    if (confirmed) bound = end;
  }
  auto chains_to_bound = [&](uint64_t c) -> absl::StatusOr<bool> {
    while (c < *bound) {
      auto found = RecordAt(c, &scratch, &ignored);
      if (!found.ok()) return found.status();
      if (!*found) return false;
      c = scratch.end_offset;
    }
    return c == *bound;
  };
  // In a file of aligned groups, past the window only group starts.
  const uint64_t unaligned_end = aligned_groups_
                                     ? offset + jf::kUnalignedScanBytes
                                     : std::numeric_limits<uint64_t>::max();
  for (uint64_t c = offset + 1; c + jf::kRecordHeaderSize <= size_;
       c = c < unaligned_end
               ? c + 1
               : (c / jf::kGroupAlignment + 1) * jf::kGroupAlignment) {
    if (bound.has_value() && c >= *bound) {
      // Nothing inside the damaged record chained to its end.
      if (*bound == size_) return std::optional<uint64_t>();
      return std::optional<uint64_t>(*bound);
    }
    auto found = RecordAt(c, &scratch, &ignored);
    if (!found.ok()) return found.status();
    // Padding proves nothing: a torn direct write may have landed the
    // group's last block (its padding) and not the records before it.
    if (*found && scratch.type != jf::RecordType::kPadding) {
      if (!bound.has_value()) return std::optional<uint64_t>(c);
      auto chains = chains_to_bound(c);
      if (!chains.ok()) return chains.status();
      if (*chains) return std::optional<uint64_t>(c);
    }
  }
  if (bound.has_value() && *bound < size_) {
    return std::optional<uint64_t>(*bound);
  }
  return std::optional<uint64_t>();
}

absl::Status JournalFileReader::HandleInvalid(uint64_t offset,
                                              const std::string& reason) {
  auto next = FindValidRecordAfter(offset);
  if (!next.ok()) return error_ = next.status();
  if (!next->has_value()) {
    report_.torn_bytes = size_ - offset;
    report_.torn_reason = reason;
    done_ = true;
    return absl::OkStatus();
  }
  const uint64_t resume = **next;
  if (options_.cut_tail_at >= 0 &&
      offset == static_cast<uint64_t>(options_.cut_tail_at)) {
    report_.torn_bytes = size_ - offset;
    report_.torn_reason =
        absl::StrCat(reason,
                     "; cut here by journalCutNewestTailAt, with the "
                     "valid records after it");
    done_ = true;
    return absl::OkStatus();
  }
  if (!options_.skip_corrupt_records) {
    const std::string where = absl::StrCat(
        "journal file ", report_.path, " is corrupt at offset ", offset, " (",
        reason, "), and a valid record follows at offset ", resume);
    if (!options_.newest_file) {
      return error_ = absl::DataLossError(absl::StrCat(
                 where,
                 ": this is damage to durable data, not a torn tail. Start "
                 "refused. To start anyway and lose the entries in bytes [",
                 offset, ", ", resume,
                 "), set journalSkipCorruptRecords=true"));
    }
    return error_ = absl::DataLossError(absl::StrCat(
               where,
               ". Start refused. This is the newest journal file: if the "
               "bookie lost power, the bytes from offset ",
               offset,
               " on are its last group, never acknowledged, a later page of "
               "which reached the disk before an earlier one; start once with "
               "--journalCutNewestTailAt=",
               report_.path, ":", offset,
               " to cut the file there. If it is damage instead (that cut "
               "would lose acknowledged entries after offset ",
               offset, "), journalSkipCorruptRecords=true skips only bytes [",
               offset, ", ", resume, ")"));
  }
  report_.skipped.push_back({offset, resume - offset, reason});
  pos_ = resume;
  return absl::OkStatus();
}

absl::StatusOr<bool> JournalFileReader::Next(JournalRecordView* record) {
  while (true) {
    if (!error_.ok()) return error_;
    if (done_) return false;
    if (pos_ >= size_) {
      done_ = true;
      return false;
    }
    std::string reason;
    auto valid = RecordAt(pos_, record, &reason);
    if (!valid.ok()) return error_ = valid.status();
    if (*valid) {
      pos_ = record->end_offset;
      report_.valid_end = pos_;
      if (record->type == jf::RecordType::kPadding) continue;
      ++report_.records;
      return true;
    }
    absl::Status s = HandleInvalid(pos_, reason);
    if (!s.ok()) return s;
  }
}

}  // namespace bk::bookie
