#include "bookie/storage/entry_log_writer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {

absl::StatusOr<std::unique_ptr<EntryLogWriter>> EntryLogWriter::Create(
    Env* env, const std::string& dir, uint64_t log_id, bool drop_synced_pages,
    uint64_t keep_cached_bytes) {
  const std::string path =
      absl::StrCat(dir, "/", entrylog::LogFileName(log_id));
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
      if (item.has_data_crc) {
        entrylog::EncodeRecordHeaderWithDataCrc(
            item.ledger_id, item.entry_id, item.data->size(), item.data_crc, h);
      } else {
        entrylog::EncodeRecordHeader(item.ledger_id, item.entry_id, *item.data,
                                     h);
      }
      iov_[2 * k] = {h, entrylog::kRecordHeaderSize};
      iov_[2 * k + 1] = {const_cast<char*>(item.data->data()),
                         item.data->size()};
      offsets[i + k] = offset;
      offset += entrylog::kRecordHeaderSize + item.data->size();
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
  const uint64_t covered = size_;
  absl::Status s = file_->Sync();
  if (!s.ok()) {
    status_ = s;
    return s;
  }
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

absl::Status EntryLogWriter::Close() { return file_->Close(); }

}  // namespace bk::bookie
