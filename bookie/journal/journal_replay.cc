#include "bookie/journal/journal_replay.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal_options.h"

namespace bk::bookie {

namespace {

// Cuts `path` to `size` bytes and makes the cut durable, so that a second
// crash cannot bring the garbage back behind newer files.
absl::Status CutTail(Env* env, const std::string& path, uint64_t size) {
  absl::Status s = env->Truncate(path, size);
  if (!s.ok()) return s;
  auto f = env->NewAppendableFile(path);
  if (!f.ok()) return f.status();
  s = (*f)->Sync(/*metadata=*/true);
  absl::Status c = (*f)->Close();
  return s.ok() ? c : s;
}

bool SameFile(const std::string& a, const std::string& b) {
  return std::filesystem::path(a).lexically_normal() ==
         std::filesystem::path(b).lexically_normal();
}

}  // namespace

absl::StatusOr<JournalDirReplay> ReplayJournalDir(
    Env* env, const std::string& dir, const JournalReaderOptions& options,
    const JournalReplayFn& fn) {
  auto parsed = ParseTailCut(options.cut_newest_tail_at);
  if (!parsed.ok()) return parsed.status();
  const std::optional<TailCut> cut = *std::move(parsed);
  JournalDirReplay out;
  out.dir = dir;
  absl::Status s = env->CreateDirRecursive(dir);
  if (!s.ok()) return s;
  auto mark = ReadCheckpoint(env, dir);
  if (mark.ok()) {
    out.checkpoint = *mark;
  } else if (absl::IsDataLoss(mark.status())) {
    out.checkpoint_problem = std::string(mark.status().message());
  } else {
    return mark.status();
  }
  auto ids = ListJournalFiles(env, dir);
  if (!ids.ok()) return ids.status();
  out.next_file_id = out.checkpoint.file_id + 1;
  if (!ids->empty()) {
    out.next_file_id = std::max(out.next_file_id, ids->back() + 1);
  }

  for (size_t i = 0; i < ids->size(); ++i) {
    const uint64_t id = (*ids)[i];
    if (id < out.checkpoint.file_id) continue;  // wholly checkpointed
    const bool newest = i + 1 == ids->size();
    const std::string path = JournalFilePath(dir, id);
    const uint64_t start =
        id == out.checkpoint.file_id ? out.checkpoint.offset : 0;
    JournalReaderOptions file_options = options;
    file_options.newest_file = newest;
    file_options.cut_tail_at = -1;
    if (newest && cut.has_value() && SameFile(cut->path, path)) {
      file_options.cut_tail_at = static_cast<int64_t>(cut->offset);
    }
    auto reader = JournalFileReader::Open(env, path, id, start, file_options);
    if (!reader.ok()) return reader.status();
    JournalRecordView record;
    while (true) {
      auto more = (*reader)->Next(&record);
      if (!more.ok()) return more.status();
      if (!*more) break;
      ++out.records;
      out.payload_bytes += record.payload.size();
      s = fn(record);
      if (!s.ok()) return s;
    }
    const JournalFileReport& report = (*reader)->report();
    out.files.push_back(report);
    if (report.torn_bytes == 0) continue;
    if (!newest) {
      const std::string msg = absl::StrCat(
          "journal file ", path, " ends in ", report.torn_bytes,
          " invalid bytes at offset ", report.valid_end, " (",
          report.torn_reason,
          ") although a newer journal file exists: older files are synced "
          "before the next is created, so this is damage, not a torn tail");
      if (!options.skip_corrupt_records) {
        return absl::DataLossError(absl::StrCat(
            msg, ". Start refused; journalSkipCorruptRecords=true skips it"));
      }
      out.files.back().skipped.push_back(
          {report.valid_end, report.torn_bytes, report.torn_reason});
      continue;
    }
    out.torn_bytes_cut += report.torn_bytes;
    if (report.header_torn) {
      s = env->RemoveFile(path);
      if (s.ok()) s = env->SyncDir(dir);
    } else {
      s = CutTail(env, path, report.valid_end);
    }
    if (!s.ok()) return s;
  }
  return out;
}

}  // namespace bk::bookie
