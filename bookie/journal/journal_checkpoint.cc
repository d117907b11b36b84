#include "bookie/journal/journal_checkpoint.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal_format.h"

namespace bk::bookie {

namespace jf = journal_format;

std::string JournalFilePath(const std::string& dir, uint64_t file_id) {
  return absl::StrCat(dir, "/", jf::FileName(file_id));
}

absl::StatusOr<JournalPosition> ReadCheckpoint(Env* env,
                                               const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", jf::kMarkFileName);
  if (!env->FileExists(path)) return JournalPosition{};
  auto data = env->ReadFileToString(path);
  if (!data.ok()) return data.status();
  JournalPosition p;
  if (!jf::DecodeMark(*data, &p.file_id, &p.offset)) {
    return absl::DataLossError(absl::StrCat(
        "journal checkpoint ", path, " is corrupt (", data->size(), " bytes)"));
  }
  return p;
}

absl::Status WriteCheckpoint(Env* env, const std::string& dir,
                             JournalPosition position) {
  return env->WriteFileAtomic(
      absl::StrCat(dir, "/", jf::kMarkFileName),
      jf::EncodeMark(position.file_id, position.offset));
}

absl::StatusOr<std::vector<uint64_t>> ListJournalFiles(Env* env,
                                                       const std::string& dir) {
  auto names = env->GetChildren(dir);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> ids;
  for (const std::string& name : *names) {
    uint64_t id;
    if (jf::ParseFileName(name, &id)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace bk::bookie
