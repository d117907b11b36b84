#include "bookie/journal/journal_files.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal_checkpoint.h"
#include "bookie/journal/journal_format.h"
#include "common/logging.h"

namespace bk::bookie {

namespace jf = journal_format;

JournalFiles::JournalFiles(Env* env, std::string dir,
                           const JournalOptions& options,
                           JournalCounters* counters)
    : env_(env),
      dir_(std::move(dir)),
      options_(options),
      counters_(counters),
      can_reuse_(options.reuse_files) {}

void JournalFiles::LogNoDirect(const absl::Status& why) {
  if (logged_no_direct_) return;
  logged_no_direct_ = true;
  log::Get("journal")->info(
      "dir={} direct writes unavailable ({}); aligned groups go through "
      "the page cache",
      dir_, std::string(why.message()));
}

absl::StatusOr<std::unique_ptr<WritableFile>> JournalFiles::Create(
    const std::string& path) {
  if (options_.direct_io) {
    auto direct = env_->NewDirectWritableFile(path);
    if (direct.ok() || !absl::IsUnimplemented(direct.status())) return direct;
    LogNoDirect(direct.status());
  }
  return env_->NewWritableFile(path);
}

absl::StatusOr<std::unique_ptr<WritableFile>> JournalFiles::Reopen(
    const std::string& path) {
  if (options_.direct_io) {
    auto direct = env_->ReopenWritableFile(path, /*direct=*/true);
    if (direct.ok() || !absl::IsUnimplemented(direct.status())) return direct;
  }
  return env_->ReopenWritableFile(path, /*direct=*/false);
}

absl::StatusOr<JournalFiles::Opened> JournalFiles::Open(uint64_t file_id,
                                                        AlignedGroup* aligned) {
  const std::string path = JournalFilePath(dir_, file_id);
  // Groups are padded to 4 KiB with direct writes and in reused files.
  jf::FileHeader header;
  auto first_bytes = [&](bool aligned_groups) {
    header = jf::EncodeFileHeader(file_id,
                                  aligned_groups ? jf::kFlagAlignedGroups : 0);
    absl::string_view first(header.data(), header.size());
    if (options_.direct_io) {  // one aligned block: header, then padding
      aligned->Reset(first.size());
      aligned->Append(first);
      first = aligned->Seal(jf::RecordSalt(jf::kVersion, file_id));
    }
    return first;
  };
  Opened out;
  out.file_id = file_id;

  // Held through the reuse, so that Retire never removes or lists again
  // the file being taken.
  absl::MutexLock l(&mu_);
  while (can_reuse_ && !recyclable_.empty()) {
    const uint64_t old_id = recyclable_.front();
    recyclable_.pop_front();
    const std::string old_path = JournalFilePath(dir_, old_id);
    auto length = env_->GetFileSize(old_path);
    if (!length.ok()) continue;  // gone meanwhile (an operator): next one
    auto file = Reopen(old_path);
    if (absl::IsUnimplemented(file.status())) {
      // This Env cannot overwrite: remove what is kept and stop keeping.
      log::Get("journal")->info(
          "dir={} journal files cannot be reused ({}); retired files are "
          "removed",
          dir_, std::string(file.status().message()));
      can_reuse_ = false;
      recyclable_.push_front(old_id);
      for (uint64_t id : recyclable_) {
        if (env_->RemoveFile(JournalFilePath(dir_, id)).ok()) {
          counters_->files_removed.fetch_add(1, std::memory_order_relaxed);
        }
      }
      recyclable_.clear();
      break;
    }
    if (!file.ok()) return file.status();
    absl::Status s = (*file)->Append(first_bytes(true));
    if (s.ok()) s = (*file)->Sync();
    if (s.ok()) s = env_->RenameFile(old_path, path);
    // The new name must be durable before any acknowledged record lives in
    // it.
    if (s.ok()) s = env_->SyncDir(dir_);
    if (!s.ok()) return s;
    counters_->files_reused.fetch_add(1, std::memory_order_relaxed);
    out.file = std::move(*file);
    out.recycled = true;
    out.old_length = *length;
    return out;
  }

  auto file = Create(path);
  if (!file.ok()) return file.status();
  absl::Status s = (*file)->Append(first_bytes(options_.direct_io));
  if (s.ok()) s = (*file)->Sync();
  if (s.ok()) s = env_->SyncDir(dir_);
  if (!s.ok()) return s;
  counters_->files_created.fetch_add(1, std::memory_order_relaxed);
  out.file = std::move(*file);
  return out;
}

absl::Status JournalFiles::Retire(uint64_t file_id) {
  absl::MutexLock l(&mu_);  // before listing: Open may be renaming one
  auto ids = ListJournalFiles(env_, dir_);
  if (!ids.ok()) return ids.status();
  std::vector<uint64_t> old;
  for (uint64_t id : *ids) {
    if (id < file_id && std::find(recyclable_.begin(), recyclable_.end(), id) ==
                            recyclable_.end()) {
      old.push_back(id);
    }
  }
  const size_t keep = static_cast<size_t>(options_.max_backups);
  absl::Status first;
  for (size_t i = 0; i + keep < old.size(); ++i) {
    if (can_reuse_ && recyclable_.size() < kMaxRecyclable) {
      recyclable_.push_back(old[i]);
      continue;
    }
    absl::Status s = env_->RemoveFile(JournalFilePath(dir_, old[i]));
    if (s.ok()) {
      counters_->files_removed.fetch_add(1, std::memory_order_relaxed);
    } else if (first.ok()) {
      first = s;
    }
  }
  return first;
}

absl::Status JournalFiles::CutStaleTail(const Opened& opened) {
  if (!opened.recycled || opened.file == nullptr) return absl::OkStatus();
  const uint64_t written = opened.file->Size();
  if (written >= opened.old_length) return absl::OkStatus();
  absl::Status s =
      env_->Truncate(JournalFilePath(dir_, opened.file_id), written);
  // The size is metadata: fsync, not fdatasync.
  if (s.ok()) s = opened.file->Sync(/*metadata=*/true);
  return s;
}

}  // namespace bk::bookie
