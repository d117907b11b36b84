#include "bookie/storage/entry_log_reader.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {
namespace {

absl::Status Corrupt(const RandomAccessFile& f, uint64_t offset,
                     absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat("entry log ", f.path(), " offset ", offset, ": ", what));
}

// Reads exactly n bytes or fails (a short read is a truncated record).
absl::Status ReadFully(const RandomAccessFile& f, uint64_t offset, size_t n,
                       char* dst) {
  size_t done = 0;
  while (done < n) {
    auto r = f.Read(offset + done, n - done, dst + done);
    if (!r.ok()) return r.status();
    if (*r == 0) return Corrupt(f, offset, "record truncated by end of file");
    done += *r;
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t ScannedRecord::size() const {
  return entrylog::kRecordHeaderSize + data.size();
}

absl::StatusOr<std::shared_ptr<EntryLogReader>> EntryLogReader::Open(
    Env* env, const std::string& path) {
  auto file = env->NewRandomAccessFile(path);
  if (!file.ok()) return file.status();
  char header[entrylog::kFileHeaderSize];
  auto n = (*file)->Read(0, sizeof(header), header);
  if (!n.ok()) return n.status();
  uint32_t version = 0;
  auto id = entrylog::DecodeFileHeader(header, *n, &version);
  if (!id.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", id.status().message()));
  }
  return std::shared_ptr<EntryLogReader>(new EntryLogReader(
      std::move(*file), *id, version == entrylog::kPaddedVersion));
}

absl::StatusOr<EntryBuffer> EntryLogReader::Read(uint64_t offset,
                                                 uint64_t ledger_id,
                                                 int64_t entry_id) const {
  char h[entrylog::kRecordHeaderSize];
  if (absl::Status s = ReadFully(*file_, offset, sizeof(h), h); !s.ok()) {
    return s;
  }
  const entrylog::RecordHeader rh = entrylog::DecodeRecordHeader(h);
  if (rh.length > entrylog::kMaxRecordDataSize) {
    return Corrupt(*file_, offset, absl::StrCat("bad length ", rh.length));
  }
  if (rh.ledger_id != ledger_id || rh.entry_id != entry_id) {
    return Corrupt(*file_, offset,
                   absl::StrCat("holds entry ", rh.ledger_id, ":", rh.entry_id,
                                ", expected ", ledger_id, ":", entry_id));
  }
  std::string data(rh.length, '\0');
  if (absl::Status s =
          ReadFully(*file_, offset + sizeof(h), rh.length, data.data());
      !s.ok()) {
    return s;
  }
  if (!entrylog::RecordCrcMatches(h, data)) {
    return Corrupt(*file_, offset, "CRC mismatch");
  }
  return MakeEntryBuffer(std::move(data));
}

EntryLogScanner::EntryLogScanner(const EntryLogReader& reader, uint64_t start,
                                 uint64_t end, size_t chunk_bytes)
    : reader_(reader),
      end_(end),
      chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)),
      pos_(std::max<uint64_t>(start, entrylog::kFileHeaderSize)) {}

absl::StatusOr<bool> EntryLogScanner::Ensure(size_t n) {
  if (pos_ >= end_ || pos_ + n > end_) {
    available_ = pos_ < end_ ? end_ - pos_ : 0;
    return false;
  }
  const uint64_t have_end = buf_offset_ + buf_size_;
  if (pos_ >= buf_offset_ && pos_ + n <= have_end) return true;
  // Refill from pos_, at least n bytes and at most up to end_.
  const uint64_t want =
      std::min<uint64_t>(std::max(n, chunk_bytes_), end_ - pos_);
  if (want > buf_capacity_) {
    buf_.reset(new char[want]);  // uninitialised: the reads fill it
    buf_capacity_ = want;
  }
  buf_size_ = 0;
  buf_offset_ = pos_;
  size_t done = 0;
  while (done < want) {
    auto r = reader_.file().Read(pos_ + done, want - done, buf_.get() + done);
    if (!r.ok()) return r.status();
    if (*r == 0) break;
    done += *r;
  }
  buf_size_ = done;
  available_ = done;
  return done >= n;
}

absl::StatusOr<bool> EntryLogScanner::Next(ScannedRecord* out) {
  // Padding of a version 2 log: a zero length field, then zeros up to the
  // next aligned block (possibly several in a row: the header block, a
  // padding shorter than a length field).
  while (reader_.padded()) {
    auto ok = Ensure(sizeof(uint32_t));
    if (!ok.ok()) return ok.status();
    if (!*ok) break;  // the end, or a torn length field: as below
    const char* h = buf_.get() + (pos_ - buf_offset_);
    if (entrylog::DecodeRecordLength(h) != 0) break;
    pos_ = entrylog::AfterPadding(pos_);
  }
  auto ok = Ensure(entrylog::kRecordHeaderSize);
  if (!ok.ok()) return ok.status();
  if (!*ok) {
    torn_tail_ = available_ > 0;
    return false;
  }
  const char* h = buf_.get() + (pos_ - buf_offset_);
  const entrylog::RecordHeader rh = entrylog::DecodeRecordHeader(h);
  if (rh.length > entrylog::kMaxRecordDataSize) {
    return Corrupt(reader_.file(), pos_,
                   absl::StrCat("bad length ", rh.length));
  }
  ok = Ensure(entrylog::kRecordHeaderSize + rh.length);
  if (!ok.ok()) return ok.status();
  if (!*ok) {
    torn_tail_ = true;
    return false;
  }
  h = buf_.get() + (pos_ - buf_offset_);  // Ensure may have refilled
  absl::string_view data(h + entrylog::kRecordHeaderSize, rh.length);
  if (!entrylog::RecordCrcMatches(h, data)) {
    return Corrupt(reader_.file(), pos_, "CRC mismatch");
  }
  out->offset = pos_;
  out->ledger_id = rh.ledger_id;
  out->entry_id = rh.entry_id;
  out->data = data;
  pos_ += entrylog::kRecordHeaderSize + rh.length;
  return true;
}

}  // namespace bk::bookie
