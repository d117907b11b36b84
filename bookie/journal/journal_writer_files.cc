// JournalWriter's file side, on the journal thread: a group's write (one
// writev of the callers' buffers, or an aligned image for direct I/O), the
// padding that keeps a reused file's writes whole pages, preallocation
// ahead of the writes, and the roll to the next file. The thread's loop,
// the group commit and the hand-off to the sync stage are in
// journal_writer.cc.

#include <array>

#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_writer.h"

namespace bk::bookie {

namespace jf = journal_format;

absl::Status JournalWriter::WriteGroup(const std::vector<JournalItem>& group,
                                       uint64_t bytes,
                                       GroupWriteTiming* timing) {
  absl::Status s = RollIfFull(bytes);
  if (!s.ok()) return s;
  // The copy into the aligned image is CPU, not device time: not timed.
  const absl::string_view image =
      options_.direct_io ? BuildImage(group, bytes) : absl::string_view();
  const int64_t t0 = env_->NowMonotonicNanos();
  s = options_.direct_io ? file()->Append(image) : AppendIov(group, bytes);
  const int64_t t1 = env_->NowMonotonicNanos();
  if (!s.ok()) return s;
  // With sync_data the sync thread syncs it; the flag is for rolls and Stop.
  file_unsynced_ = !options_.sync_data;
  {
    absl::MutexLock l(&position_mu_);
    written_ = JournalPosition{current_.file_id, file()->Size()};
  }
  // Items are queued in order: the front one waited longest.
  timing->queue_nanos = t0 - group.front().enqueue_nanos;
  timing->write_nanos = t1 - t0;
  timing->written_at = t1;
  counters_.write_nanos_total.fetch_add(static_cast<uint64_t>(t1 - t0),
                                        std::memory_order_relaxed);
  counters_.bytes_written.fetch_add(bytes, std::memory_order_relaxed);
  // Every record header has the same size: no second pass over the group.
  counters_.payload_bytes.fetch_add(
      bytes - group.size() * jf::kRecordHeaderSize, std::memory_order_relaxed);
  counters_.records_written.fetch_add(group.size(), std::memory_order_relaxed);
  counters_.groups_written.fetch_add(1, std::memory_order_relaxed);
  if (file()->Size() + options_.buffered_writes_threshold_bytes >
      preallocated_end_) {
    // Only an optimisation (fewer metadata updates per sync): a failure
    // here leaves the file intact, and a full disk shows on the next write.
    if (file()->Preallocate(options_.preallocate_bytes).ok()) {
      preallocated_end_ = file()->Size() + options_.preallocate_bytes;
    }
  }
  return absl::OkStatus();
}

absl::string_view JournalWriter::BuildImage(
    const std::vector<JournalItem>& group, uint64_t bytes) {
  aligned_.Reset(bytes);
  uint64_t copied = 0;
  for (const JournalItem& item : group) {
    aligned_.AppendRecordHeader(
        absl::string_view(item.header.data(), item.header.size()), salt_);
    aligned_.Append(item.payload.data);
    copied += item.payload.data.size();
  }
  counters_.payload_bytes_copied.fetch_add(copied, std::memory_order_relaxed);
  const absl::string_view image = aligned_.Seal(salt_);
  counters_.padding_bytes.fetch_add(aligned_.padding_bytes(),
                                    std::memory_order_relaxed);
  return image;
}

absl::Status JournalWriter::AppendIov(const std::vector<JournalItem>& group,
                                      uint64_t bytes) {
  iov_.clear();
  // The producers encoded the headers without knowing the file; its salt
  // goes into copies (28 bytes a record), the payloads are not copied.
  salted_.resize(group.size());
  for (size_t i = 0; i < group.size(); ++i) {
    const JournalItem& item = group[i];
    salted_[i] = item.header;
    jf::SaltRecordHeader(salt_, salted_[i].data());
    iov_.push_back({salted_[i].data(), salted_[i].size()});
    if (!item.payload.data.empty()) {
      iov_.push_back({const_cast<char*>(item.payload.data.data()),
                      item.payload.data.size()});
    }
  }
  if (current_.recycled) {
    // In a reused file a group that ends inside a page would make the
    // kernel read that page's old content back from the disk before the
    // next group's write (read-modify-write of a page not in the cache,
    // the common case once the file's last life is gigabytes ago). A
    // padding record to the next 4 KiB boundary, from a zero buffer, keeps
    // every write whole pages.
    const size_t pad = jf::PaddingFor(file()->Size() + bytes, kPageBytes);
    if (pad > 0) {
      static const std::array<char, 2 * kPageBytes> kZeros{};
      const absl::string_view zeros(kZeros.data(), pad - jf::kRecordHeaderSize);
      jf::EncodeRecordHeader(jf::RecordType::kPadding, 0, -1, zeros,
                             &pad_header_);
      jf::SaltRecordHeader(salt_, pad_header_.data());
      iov_.push_back({pad_header_.data(), pad_header_.size()});
      iov_.push_back({const_cast<char*>(zeros.data()), zeros.size()});
      counters_.padding_bytes.fetch_add(pad, std::memory_order_relaxed);
    }
  }
  return file()->AppendV(iov_.data(), static_cast<int>(iov_.size()));
}

absl::Status JournalWriter::RollIfFull(uint64_t next_bytes) {
  const uint64_t size = file()->Size();
  if (size <= jf::kFileHeaderSize ||
      size + next_bytes <= options_.max_file_size_bytes) {
    return absl::OkStatus();
  }
  // The sync threads finish with the old file, then it is synced before the
  // new one exists whatever sync_data says: only the newest may be torn.
  sync_.Drain();
  if (absl::Status st = status(); !st.ok()) return st;
  if (file_unsynced_) {
    absl::Status s = file()->Sync();
    counters_.syncs.fetch_add(1, std::memory_order_relaxed);
    if (!s.ok()) return s;
    file_unsynced_ = false;
  }
  absl::Status s = files_.CutStaleTail(current_);
  if (!s.ok()) return s;
  s = file()->Close();
  if (!s.ok()) return s;
  return OpenNewFile(current_.file_id + 1);
}

absl::Status JournalWriter::OpenNewFile(uint64_t file_id) {
  auto opened = files_.Open(file_id, &aligned_);
  if (!opened.ok()) return opened.status();
  current_ = std::move(*opened);
  salt_ = jf::RecordSalt(jf::kVersion, file_id);
  file_unsynced_ = false;
  // A recycled file is allocated up to its old length already.
  preallocated_end_ = current_.recycled ? current_.old_length : 0;
  if (file()->Size() + options_.buffered_writes_threshold_bytes >
          preallocated_end_ &&
      file()->Preallocate(options_.preallocate_bytes).ok()) {  // see above
    preallocated_end_ = file()->Size() + options_.preallocate_bytes;
  }
  absl::MutexLock l(&position_mu_);
  written_ = JournalPosition{file_id, file()->Size()};
  return absl::OkStatus();
}

}  // namespace bk::bookie
