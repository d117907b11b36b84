#include "bookie/storage/entry_log_writer.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {
namespace {

// `item`'s record header into h[0, kRecordHeaderSize), from the data's own
// CRC when the caller has it.
void EncodeHeader(const EntryLogItem& item, char* h) {
  if (item.has_data_crc) {
    entrylog::EncodeRecordHeaderWithDataCrc(item.ledger_id, item.entry_id,
                                            item.data.size(), item.data_crc, h);
  } else {
    entrylog::EncodeRecordHeader(item.ledger_id, item.entry_id, item.data, h);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<EntryLogWriter>> EntryLogWriter::Create(
    Env* env, const std::string& dir, uint64_t log_id, bool drop_synced_pages,
    uint64_t keep_cached_bytes, bool direct_io) {
  const std::string path =
      absl::StrCat(dir, "/", entrylog::LogFileName(log_id));
  if (direct_io) {
    auto file = env->NewDirectWritableFile(path);
    if (file.ok()) {
      std::unique_ptr<EntryLogWriter> w(
          new EntryLogWriter(std::move(*file), log_id, 0, false, 0));
      w->direct_ = std::make_unique<Direct>();
      // The header block, padded like any other, written and synced.
      w->Reserve(entrylog::kFileHeaderSize);
      entrylog::EncodeFileHeader(log_id, w->direct_->buf.get(),
                                 entrylog::kPaddedVersion);
      w->direct_->used = entrylog::kFileHeaderSize;
      absl::Status s = w->WriteDirect(/*pad=*/true);
      if (s.ok()) s = w->file_->Sync(/*metadata=*/true);
      if (s.ok()) s = env->SyncDir(dir);
      if (!s.ok()) {
        w->file_->Close().IgnoreError();
        return s;
      }
      return w;
    }
    if (!absl::IsUnimplemented(file.status())) return file.status();
    // The filesystem refuses O_DIRECT: a buffered log, as without.
  }
  auto file = env->NewWritableFile(path);
  if (!file.ok()) return file.status();
  char header[entrylog::kFileHeaderSize];
  entrylog::EncodeFileHeader(log_id, header);
  absl::Status s = (*file)->Append(absl::string_view(header, sizeof(header)));
  if (s.ok()) s = (*file)->Sync(/*metadata=*/true);
  if (s.ok()) s = env->SyncDir(dir);
  if (!s.ok()) {
    (*file)->Close().IgnoreError();
    return s;
  }
  return std::unique_ptr<EntryLogWriter>(
      new EntryLogWriter(std::move(*file), log_id, sizeof(header),
                         drop_synced_pages, keep_cached_bytes));
}

absl::Status EntryLogWriter::Append(absl::Span<const EntryLogItem> items,
                                    absl::Span<uint64_t> offsets) {
  if (!status_.ok()) return status_;
  return direct_ ? AppendDirect(items, offsets)
                 : AppendBuffered(items, offsets);
}

void EntryLogWriter::Reserve(size_t bytes) {
  Direct& d = *direct_;
  // Room for the bytes and for the padding of a sync after them.
  const size_t need = d.used + bytes + 2 * entrylog::kPaddingAlignment;
  if (need <= d.capacity) return;
  const size_t a = entrylog::kPaddingAlignment;
  const size_t capacity =
      (std::max(need, kDirectWriteBytes + 2 * a) + a - 1) / a * a;
  char* p = static_cast<char*>(std::aligned_alloc(a, capacity));
  if (p == nullptr) std::abort();  // as operator new would
  if (d.used > 0) std::memcpy(p, d.buf.get(), d.used);
  d.buf.reset(p);
  d.capacity = capacity;
}

absl::Status EntryLogWriter::AppendDirect(absl::Span<const EntryLogItem> items,
                                          absl::Span<uint64_t> offsets) {
  Direct& d = *direct_;
  for (size_t i = 0; i < items.size(); ++i) {
    const EntryLogItem& item = items[i];
    Reserve(entrylog::kRecordHeaderSize + item.data.size());
    char* h = d.buf.get() + d.used;
    EncodeHeader(item, h);
    std::memcpy(h + entrylog::kRecordHeaderSize, item.data.data(),
                item.data.size());
    offsets[i] = d.written + d.used;
    d.used += entrylog::kRecordHeaderSize + item.data.size();
    if (d.used >= kDirectWriteBytes) {
      if (absl::Status s = WriteDirect(/*pad=*/false); !s.ok()) return s;
    }
  }
  size_ = d.written + d.used;
  return absl::OkStatus();
}

absl::Status EntryLogWriter::WriteDirect(bool pad) {
  Direct& d = *direct_;
  const size_t a = entrylog::kPaddingAlignment;
  size_t bytes = d.used / a * a;
  if (pad && bytes < d.used) {
    bytes += a;
    // The padding must hold a whole length field (entry_log_format.h).
    if (bytes - d.used < sizeof(uint32_t)) bytes += a;
    std::memset(d.buf.get() + d.used, 0, bytes - d.used);
  }
  if (bytes == 0) return absl::OkStatus();
  if (absl::Status s = file_->Append(absl::string_view(d.buf.get(), bytes));
      !s.ok()) {
    return Fail(s);
  }
  const size_t rest = bytes < d.used ? d.used - bytes : 0;
  if (rest > 0) std::memmove(d.buf.get(), d.buf.get() + bytes, rest);
  d.used = rest;
  d.written += bytes;
  size_ = d.written + d.used;
  return absl::OkStatus();
}

absl::Status EntryLogWriter::AppendBuffered(
    absl::Span<const EntryLogItem> items, absl::Span<uint64_t> offsets) {
  constexpr size_t kPerWrite = kMaxIovecs / 2;  // header + data per record
  headers_.resize(std::min(items.size(), kPerWrite) *
                  entrylog::kRecordHeaderSize);
  iov_.resize(std::min(items.size(), kPerWrite) * 2);
  size_t i = 0;
  while (i < items.size()) {
    const size_t n = std::min(items.size() - i, kPerWrite);
    uint64_t offset = size_;
    for (size_t k = 0; k < n; ++k) {
      const EntryLogItem& item = items[i + k];
      char* h = headers_.data() + k * entrylog::kRecordHeaderSize;
      EncodeHeader(item, h);
      iov_[2 * k] = {h, entrylog::kRecordHeaderSize};
      iov_[2 * k + 1] = {const_cast<char*>(item.data.data()), item.data.size()};
      offsets[i + k] = offset;
      offset += entrylog::kRecordHeaderSize + item.data.size();
    }
    absl::Status s = file_->AppendV(iov_.data(), static_cast<int>(2 * n));
    if (!s.ok()) {
      status_ = s;
      return s;
    }
    size_ = offset;
    i += n;
  }
  return absl::OkStatus();
}

absl::Status EntryLogWriter::Sync() {
  if (!status_.ok()) return status_;
  if (direct_) {
    if (absl::Status s = WriteDirect(/*pad=*/true); !s.ok()) return s;
    if (absl::Status s = file_->Sync(); !s.ok()) return Fail(s);
    return absl::OkStatus();
  }
  const uint64_t covered = size_;
  absl::Status s = file_->Sync();
  if (!s.ok()) {
    status_ = s;
    return s;
  }
  behind_started_ = std::max(behind_started_, covered);
  behind_waited_ = behind_started_;
  // The newest keep_cached_bytes_ stay for readers catching up; the pages
  // dropped behind them are what the next appends reuse.
  // Whole pages only: the page the sync ended in is still being filled.
  constexpr uint64_t kPage = 4096;
  if (drop_synced_pages_ && covered > dropped_to_ + keep_cached_bytes_) {
    const uint64_t end = (covered - keep_cached_bytes_) / kPage * kPage;
    if (end > dropped_to_) {
      file_->DropCachedRange(dropped_to_, end - dropped_to_);
      dropped_to_ = end;
    }
  }
  return s;
}

absl::Status EntryLogWriter::WriteBehind() {
  if (!status_.ok()) return status_;
  if (direct_) return absl::OkStatus();
  // The step started last time was written while the caller appended this
  // one; wait for it before starting this one, so that one step at most is
  // queued at the device.
  if (behind_started_ > behind_waited_) {
    absl::Status s = file_->Writeback(
        behind_waited_, behind_started_ - behind_waited_, /*wait=*/true);
    if (!s.ok()) return Fail(s);
    behind_waited_ = behind_started_;
  }
  const uint64_t end = size_;
  if (end > behind_started_) {
    absl::Status s = file_->Writeback(behind_started_, end - behind_started_,
                                      /*wait=*/false);
    if (!s.ok()) return Fail(s);
    behind_started_ = end;
  }
  return absl::OkStatus();
}

absl::Status EntryLogWriter::Close() { return file_->Close(); }

}  // namespace bk::bookie
