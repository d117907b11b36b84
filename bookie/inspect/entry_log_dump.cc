#include "bookie/inspect/entry_log_dump.h"

#include "absl/strings/str_cat.h"
#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_reader.h"

namespace bk::bookie::inspect {

std::string EntryLogPath(const std::string& dir, uint64_t log_id) {
  return absl::StrCat(dir, "/", entrylog::LogFileName(log_id));
}

absl::StatusOr<EntryLogDump> DumpEntryLog(Env* env, const std::string& path,
                                          const EntryLogVisitFn& visit) {
  auto size = env->GetFileSize(path);
  if (!size.ok()) return size.status();
  auto reader = EntryLogReader::Open(env, path);
  if (!reader.ok()) return reader.status();
  EntryLogDump dump;
  dump.log_id = (*reader)->log_id();
  dump.file_size = *size;
  dump.valid_end = entrylog::kFileHeaderSize;
  EntryLogScanner scanner(**reader, entrylog::kFileHeaderSize, *size);
  ScannedRecord scanned;
  while (true) {
    auto more = scanner.Next(&scanned);
    if (!more.ok()) {
      dump.error = std::string(more.status().message());
      break;
    }
    if (!*more) break;
    ++dump.records;
    dump.valid_end = scanned.offset + scanned.size();
    visit(EntryLogRecord{scanned.offset, scanned.ledger_id, scanned.entry_id,
                         scanned.data});
  }
  dump.torn_tail = scanner.torn_tail();
  return dump;
}

}  // namespace bk::bookie::inspect
