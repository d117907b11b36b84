// One test per branch of the journal reader (journal_reader.h).

#include "bookie/journal/journal_reader.h"

#include <catch2/catch.hpp>

#include "bookie/journal/journal_options.h"
#include "proto/coding.h"
#include "proto/crc32c.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::EntryRecord;
using testing::FileHeader;
using testing::WriteRaw;
namespace jf = journal_format;

struct ReadAll {
  absl::Status status;
  std::vector<std::string> payloads;
  JournalFileReport report;
};

ReadAll Read(const std::string& path, uint64_t file_id, bool skip = false,
             uint64_t start = 0) {
  ReadAll out;
  JournalReaderOptions opts;
  opts.skip_corrupt_records = skip;
  auto r = JournalFileReader::Open(Env::Default(), path, file_id, start, opts);
  if (!r.ok()) {
    out.status = r.status();
    return out;
  }
  JournalRecordView rec;
  while (true) {
    auto more = (*r)->Next(&rec);
    if (!more.ok()) {
      out.status = more.status();
      break;
    }
    if (!*more) break;
    out.payloads.emplace_back(rec.payload);
  }
  out.report = (*r)->report();
  return out;
}

}  // namespace

std::string testing::FileHeaderOfVersion(uint64_t file_id, uint32_t version) {
  std::string header = FileHeader(file_id);
  coding::PutFixed32BE(header.data() + jf::kVersionOffset, version);
  const uint32_t crc =
      crc32c::Mask(crc32c::Value(header.data(), jf::kFileHeaderCrcOffset));
  coding::PutFixed32BE(header.data() + jf::kFileHeaderCrcOffset, crc);
  return header;
}

namespace {

std::string ThreeRecords() {
  return absl::StrCat(FileHeader(1), EntryRecord(5, 0, "zero"),
                      EntryRecord(5, 1, "one"), EntryRecord(5, 2, "two"));
}

TEST_CASE("reader returns every record of an intact file in order",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), ThreeRecords());
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero", "one", "two"});
  CHECK(r.report.torn_bytes == 0);
  CHECK(r.report.valid_end == ThreeRecords().size());
}

TEST_CASE("reader ignores a truncated trailing record and reports the cut",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  const std::string full = ThreeRecords();
  WriteRaw(dir.Sub("f"), full.substr(0, full.size() - 2));
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero", "one"});
  CHECK(r.report.torn_bytes == jf::kRecordHeaderSize + 3 - 2);
  CHECK(r.report.valid_end + r.report.torn_bytes == full.size() - 2);
}

TEST_CASE("reader ignores a checksum mismatch in the last record",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string data = ThreeRecords();
  data.back() ^= 0x40;  // the last payload byte
  WriteRaw(dir.Sub("f"), data);
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads.size() == 2);
  CHECK(r.report.torn_reason == "record checksum mismatch");
}

TEST_CASE("reader treats a zero-filled tail as the end of the journal",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), absl::StrCat(ThreeRecords(), std::string(4096, '\0')));
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads.size() == 3);
  CHECK(r.report.torn_bytes == 4096);
  CHECK(r.report.torn_reason == "zero-filled region");
}

TEST_CASE("reader refuses a checksum mismatch in the middle of a file",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string data = ThreeRecords();
  const size_t second_payload =
      jf::kFileHeaderSize + jf::kRecordHeaderSize + 4 + jf::kRecordHeaderSize;
  data[second_payload] ^= 0x01;
  WriteRaw(dir.Sub("f"), data);
  ReadAll r = Read(dir.Sub("f"), 1);
  CHECK(absl::IsDataLoss(r.status));
  CHECK(r.status.message().find("checksum mismatch") !=
        absl::string_view::npos);
  CHECK(r.payloads == std::vector<std::string>{"zero"});
}

TEST_CASE("reader refuses a bad length in the middle of a file", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string data = ThreeRecords();
  const size_t length_field = jf::kFileHeaderSize + jf::kRecordLengthOffset;
  data[length_field] = '\x7f';  // about 2 GiB: past any record limit
  WriteRaw(dir.Sub("f"), data);
  ReadAll r = Read(dir.Sub("f"), 1);
  CHECK(absl::IsDataLoss(r.status));
  CHECK(r.status.message().find("bad record length") !=
        absl::string_view::npos);
}

TEST_CASE("reader refuses a bad magic when valid records follow", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string data = ThreeRecords();
  data[0] = 'X';
  WriteRaw(dir.Sub("f"), data);
  ReadAll r = Read(dir.Sub("f"), 1);
  CHECK(absl::IsDataLoss(r.status));
  CHECK(r.status.message().find("file header") != absl::string_view::npos);
}

TEST_CASE(
    "reader treats a torn header with nothing after it as an "
    "interrupted file creation",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), FileHeader(1).substr(0, 11));
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.report.header_torn);
  CHECK(r.report.valid_end == 0);
  CHECK(r.report.torn_bytes == 11);
}

TEST_CASE("reader refuses an unknown format version", "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), testing::FileHeaderOfVersion(1, jf::kVersion + 1));
  ReadAll r = Read(dir.Sub("f"), 1);
  CHECK(absl::IsFailedPrecondition(r.status));
}

TEST_CASE("reader reads a version 1 file, which has no padding records",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), absl::StrCat(testing::FileHeaderOfVersion(1, 1),
                                      EntryRecord(5, 0, "zero", 0),
                                      EntryRecord(5, 1, "one", 0)));
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero", "one"});
}

TEST_CASE("reader skips padding records and counts only the others",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string file = absl::StrCat(FileHeader(1), EntryRecord(5, 0, "zero"));
  std::string pad(jf::PaddingFor(file.size(), 4096), '\0');
  jf::EncodePadding(pad.size(), testing::SaltOf(1), pad.data());
  file += pad;
  CHECK(file.size() % 4096 == 0);
  file += EntryRecord(5, 1, "one");
  WriteRaw(dir.Sub("f"), file);
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero", "one"});
  CHECK(r.report.records == 2);
  CHECK(r.report.valid_end == file.size());
}

// A file of aligned groups (kFlagAlignedGroups): one record, a bad one,
// then `gap` bytes of stale garbage (old records of another salt), then a
// valid record at `at`.
std::string AlignedFileWithRecordAt(uint64_t at) {
  std::string file = absl::StrCat(FileHeader(1, jf::kFlagAlignedGroups),
                                  EntryRecord(5, 0, "zero"));
  std::string bad = EntryRecord(5, 1, "one");
  bad[jf::kRecordHeaderSize] ^= 1;  // payload flipped: crc mismatch
  file += bad;
  const std::string stale = EntryRecord(5, 9, "old life", testing::SaltOf(0));
  while (file.size() + stale.size() <= at) file += stale;
  file.resize(at, 'x');
  return file + EntryRecord(5, 2, "two");
}

TEST_CASE(
    "in a file of aligned groups a valid group far past a bad record "
    "proves corruption",
    "[journal]") {
  // The window holds any group the options allow.
  static_assert(JournalOptions::kMaxBufferedWritesThreshold +
                    jf::kMaxRecordPayloadSize + jf::kRecordHeaderSize <
                jf::kUnalignedScanBytes);
  JournalOptions o;
  o.dirs = {"/j"};
  o.buffered_writes_threshold_bytes =
      JournalOptions::kMaxBufferedWritesThreshold + 1;
  CHECK(absl::IsInvalidArgument(o.Validate()));
  TempDir dir(TempDir::Where::kMemory);
  const uint64_t at = jf::kUnalignedScanBytes + 10 * jf::kGroupAlignment;
  WriteRaw(dir.Sub("f"), AlignedFileWithRecordAt(at));
  ReadAll r = Read(dir.Sub("f"), 1);
  CHECK(absl::IsDataLoss(r.status));
  CHECK(r.payloads == std::vector<std::string>{"zero"});
}

TEST_CASE(
    "in a file of aligned groups past the scan window only group starts are "
    "looked at, so old records there are a torn tail",
    "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  // Not on a 4 KiB boundary, so not a group start: in an aligned file it is
  // the inside of an old group, never a record of this file's life.
  const uint64_t at = jf::kUnalignedScanBytes + 10 * jf::kGroupAlignment + 100;
  WriteRaw(dir.Sub("f"), AlignedFileWithRecordAt(at));
  ReadAll r = Read(dir.Sub("f"), 1);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero"});
  CHECK(r.report.torn_bytes > jf::kUnalignedScanBytes);
  // Without the flag every offset is looked at: corruption.
  std::string file = AlignedFileWithRecordAt(at);
  file.replace(0, jf::kFileHeaderSize, FileHeader(1));
  WriteRaw(dir.Sub("g"), file);
  CHECK(absl::IsDataLoss(Read(dir.Sub("g"), 1).status));
}

TEST_CASE("reader refuses a file whose header names another file id",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), ThreeRecords());
  ReadAll r = Read(dir.Sub("f"), 2);
  CHECK(absl::IsDataLoss(r.status));
}

TEST_CASE("reader skips a corrupt record and reports it when told to",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  std::string data = ThreeRecords();
  const size_t second_payload =
      jf::kFileHeaderSize + jf::kRecordHeaderSize + 4 + jf::kRecordHeaderSize;
  data[second_payload] ^= 0x01;
  WriteRaw(dir.Sub("f"), data);
  ReadAll r = Read(dir.Sub("f"), 1, /*skip=*/true);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"zero", "two"});
  REQUIRE(r.report.skipped.size() == 1);
  CHECK(r.report.skipped[0].offset ==
        jf::kFileHeaderSize + jf::kRecordHeaderSize + 4);
  CHECK(r.report.skipped[0].bytes == jf::kRecordHeaderSize + 3);
}

TEST_CASE("reader starts at a checkpoint offset and past-the-end is empty",
          "[journal]") {
  TempDir dir(TempDir::Where::kMemory);
  WriteRaw(dir.Sub("f"), ThreeRecords());
  const uint64_t second = jf::kFileHeaderSize + jf::kRecordHeaderSize + 4;
  ReadAll r = Read(dir.Sub("f"), 1, false, second);
  REQUIRE(r.status.ok());
  CHECK(r.payloads == std::vector<std::string>{"one", "two"});
  ReadAll past = Read(dir.Sub("f"), 1, false, 1 << 20);
  REQUIRE(past.status.ok());
  CHECK(past.payloads.empty());
  CHECK(past.report.torn_bytes == 0);
}

}  // namespace
}  // namespace bk::bookie
