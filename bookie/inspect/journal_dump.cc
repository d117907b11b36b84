#include "bookie/inspect/journal_dump.h"

#include "absl/strings/str_cat.h"
#include "bookie/journal/journal_format.h"

namespace bk::bookie::inspect {
namespace {

namespace jf = journal_format;

std::string_view TypeName(jf::RecordType type) {
  switch (type) {
    case jf::RecordType::kEntry:
      return "entry";
    case jf::RecordType::kFence:
      return "fence";
    case jf::RecordType::kMasterKey:
      return "masterkey";
    case jf::RecordType::kExplicitLac:
      return "explicitlac";
    case jf::RecordType::kForce:
      return "force";
    case jf::RecordType::kPadding:
      return "padding";
    case jf::RecordType::kZero:
      break;
  }
  return "zero";
}

}  // namespace

absl::StatusOr<JournalDirDump> ListJournalDir(Env* env,
                                              const std::string& dir) {
  if (!env->FileExists(dir)) {
    return absl::NotFoundError(absl::StrCat("no directory ", dir));
  }
  JournalDirDump dump;
  dump.dir = dir;
  auto checkpoint = ReadCheckpoint(env, dir);
  if (checkpoint.ok()) {
    dump.checkpoint = *checkpoint;
  } else {
    dump.checkpoint_error = std::string(checkpoint.status().message());
  }
  auto ids = ListJournalFiles(env, dir);
  if (!ids.ok()) return ids.status();
  for (uint64_t id : *ids) {
    JournalFileDump file;
    file.file_id = id;
    file.report.path = JournalFilePath(dir, id);
    auto size = env->GetFileSize(file.report.path);
    if (size.ok()) file.report.file_size = *size;
    dump.files.push_back(std::move(file));
  }
  return dump;
}

absl::StatusOr<JournalFileDump> DumpJournalFile(
    Env* env, const std::string& dir, uint64_t file_id,
    const std::optional<JournalPosition>& checkpoint,
    const JournalVisitFn& visit) {
  const std::string path = JournalFilePath(dir, file_id);
  if (!env->FileExists(path)) {
    return absl::NotFoundError(absl::StrCat("no journal file ", path));
  }
  JournalReaderOptions options;
  options.skip_corrupt_records = true;  // report, never stop
  auto reader = JournalFileReader::Open(env, path, file_id, 0, options);
  if (!reader.ok()) return reader.status();
  JournalRecordView view;
  while (true) {
    auto more = (*reader)->Next(&view);
    if (!more.ok()) return more.status();
    if (!*more) break;
    JournalRecord record;
    record.file_id = file_id;
    record.offset = view.offset;
    record.type = TypeName(view.type);
    record.ledger_id = view.ledger_id;
    record.entry_id = view.entry_id;
    record.payload = view.payload;
    record.checkpointed = checkpoint.has_value() &&
                          JournalPosition{file_id, view.offset} < *checkpoint;
    visit(record);
  }
  JournalFileDump dump;
  dump.file_id = file_id;
  dump.report = (*reader)->report();
  return dump;
}

}  // namespace bk::bookie::inspect
