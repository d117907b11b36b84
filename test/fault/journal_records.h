// The records of a journal file, as the torn-journal fault tests read them
// (torn_journal_store_test.cc on an in-process store,
// bookie_torn_journal_test.cc on a real bookie process).

#ifndef BK_TEST_FAULT_JOURNAL_RECORDS_H_
#define BK_TEST_FAULT_JOURNAL_RECORDS_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bookie/journal/journal_format.h"
#include "bookie/journal/journal_reader.h"
#include "common/env.h"

namespace bk::fault {

struct JournalRecord {
  bookie::journal_format::RecordType type;
  int64_t entry_id;
  uint64_t offset, end;
};

// Every record of the journal file at `path`, in order.
inline std::vector<JournalRecord> RecordsOf(const std::string& path) {
  uint64_t file_id = 0;
  REQUIRE(bookie::journal_format::ParseFileName(
      std::filesystem::path(path).filename().string(), &file_id));
  auto r = bookie::JournalFileReader::Open(Env::Default(), path, file_id, 0,
                                           bookie::JournalReaderOptions());
  REQUIRE(r.ok());
  std::vector<JournalRecord> out;
  bookie::JournalRecordView v;
  while (true) {
    auto more = (*r)->Next(&v);
    REQUIRE(more.ok());
    if (!*more) break;
    out.push_back({v.type, v.entry_id, v.offset, v.end_offset});
  }
  return out;
}

// The one journal file (*.jnl) in `dir`.
inline std::string JournalFile(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".jnl") return e.path().string();
  }
  FAIL("no journal file in " << dir);
  return "";
}

}  // namespace bk::fault

#endif  // BK_TEST_FAULT_JOURNAL_RECORDS_H_
