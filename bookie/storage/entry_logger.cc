#include "bookie/storage/entry_logger.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"

namespace bk::bookie {
namespace {

// "0000000000000007.log" -> 7; false for any other name.
bool ParseLogName(const std::string& name, uint64_t* id) {
  if (name.size() != 20 || !absl::EndsWith(name, ".log")) return false;
  return absl::SimpleHexAtoi(absl::string_view(name.data(), 16), id);
}

}  // namespace

absl::StatusOr<std::unique_ptr<EntryLogger>> EntryLogger::Open(
    Env* env, const std::string& dir, uint64_t size_limit, uint64_t min_next_id,
    bool drop_synced_pages, uint64_t keep_cached_bytes, bool direct_io) {
  if (absl::Status s = env->CreateDirRecursive(dir); !s.ok()) return s;
  auto children = env->GetChildren(dir);
  if (!children.ok()) return children.status();
  uint64_t next = std::max<uint64_t>(min_next_id, 1);
  uint64_t bytes = 0;
  for (const std::string& name : *children) {
    uint64_t id;
    if (!ParseLogName(name, &id)) continue;
    next = std::max(next, id + 1);
    auto size = env->GetFileSize(absl::StrCat(dir, "/", name));
    if (size.ok()) bytes += *size;
  }
  return std::unique_ptr<EntryLogger>(
      new EntryLogger(env, dir, size_limit, next, bytes, drop_synced_pages,
                      keep_cached_bytes, direct_io));
}

std::string EntryLogger::PathOf(uint64_t log_id) const {
  return absl::StrCat(dir_, "/", entrylog::LogFileName(log_id));
}

uint64_t EntryLogger::current_log_id() const { return current_id_.load(); }

absl::Status EntryLogger::Roll() {
  if (writer_ != nullptr) {
    // Every log but the current one is fully durable.
    if (absl::Status s = writer_->Sync(); !s.ok()) return s;
    writer_->Close().IgnoreError();  // synced; a close error loses nothing
    writer_.reset();
  }
  auto w = EntryLogWriter::Create(env_, dir_, next_id_, drop_synced_pages_,
                                  keep_cached_bytes_, direct_io_);
  if (!w.ok()) return w.status();
  ++next_id_;
  writer_ = std::move(*w);
  total_bytes_.fetch_add(writer_->size());
  current_id_.store(writer_->log_id());
  return absl::OkStatus();
}

absl::Status EntryLogger::Append(absl::Span<const EntryLogItem> items,
                                 absl::Span<EntryLocation> locations) {
  std::vector<uint64_t> offsets(items.size());
  size_t i = 0;
  while (i < items.size()) {
    if (writer_ == nullptr) {
      if (absl::Status s = Roll(); !s.ok()) return s;
    }
    // Take as many records as fit under the limit (at least one, so an
    // entry larger than the limit still gets a log of its own).
    uint64_t size = writer_->size();
    size_t n = 0;
    while (i + n < items.size()) {
      const uint64_t rec =
          entrylog::kRecordHeaderSize + items[i + n].data.size();
      if (size + rec > size_limit_ &&
          (n > 0 || writer_->size() > entrylog::kFileHeaderSize)) {
        break;
      }
      size += rec;
      ++n;
    }
    if (n == 0) {
      if (absl::Status s = Roll(); !s.ok()) return s;
      continue;
    }
    const uint64_t before = writer_->size();
    absl::Status s = writer_->Append(items.subspan(i, n),
                                     absl::MakeSpan(offsets).subspan(i, n));
    if (!s.ok()) return s;
    total_bytes_.fetch_add(writer_->size() - before);
    for (size_t k = i; k < i + n; ++k) {
      locations[k] = EntryLocation{writer_->log_id(), offsets[k]};
    }
    i += n;
  }
  return absl::OkStatus();
}

absl::Status EntryLogger::Sync() {
  if (writer_ == nullptr) return absl::OkStatus();
  return writer_->Sync();
}

absl::Status EntryLogger::WriteBehind() {
  if (writer_ == nullptr) return absl::OkStatus();
  return writer_->WriteBehind();
}

absl::StatusOr<std::shared_ptr<EntryLogReader>> EntryLogger::Reader(
    uint64_t log_id) {
  {
    absl::ReaderMutexLock l(&readers_mu_);
    auto it = readers_.find(log_id);
    if (it != readers_.end()) return it->second;
  }
  auto r = EntryLogReader::Open(env_, PathOf(log_id));
  if (!r.ok()) return r.status();
  absl::MutexLock l(&readers_mu_);
  auto [it, inserted] = readers_.emplace(log_id, *r);
  return it->second;
}

absl::Status EntryLogger::Remove(uint64_t log_id) {
  if (log_id == current_id_.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat("entry log ", log_id, " is being written"));
  }
  {
    absl::MutexLock l(&readers_mu_);
    readers_.erase(log_id);
  }
  const std::string path = PathOf(log_id);
  auto size = env_->GetFileSize(path);
  if (absl::Status s = env_->RemoveFile(path); !s.ok()) return s;
  if (size.ok()) total_bytes_.fetch_sub(std::min(*size, total_bytes_.load()));
  return env_->SyncDir(dir_);
}

absl::StatusOr<std::vector<uint64_t>> EntryLogger::ListLogs() const {
  auto children = env_->GetChildren(dir_);
  if (!children.ok()) return children.status();
  std::vector<uint64_t> ids;
  for (const std::string& name : *children) {
    uint64_t id;
    if (ParseLogName(name, &id)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace bk::bookie
