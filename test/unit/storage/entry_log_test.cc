// Entry log format, writer, reader and scanner.

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/entry_log_writer.h"
#include "proto/crc32c.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
using testing::FlipByte;
using testing::IsEntry;
using testing::MakeEntry;

struct Written {
  std::vector<EntryBuffer> data;
  std::vector<uint64_t> offsets;
  std::string path;
};

Written WriteLog(const TempDir& dir, int n) {
  Env* env = Env::Default();
  auto w = EntryLogWriter::Create(env, dir.path(), 7);
  REQUIRE(w.ok());
  Written out;
  std::vector<EntryLogItem> items;
  for (int i = 0; i < n; ++i) out.data.push_back(MakeEntry(1, i, 200));
  for (int i = 0; i < n; ++i) items.push_back({1, i, *out.data[i]});
  out.offsets.resize(n);
  REQUIRE((*w)->Append(items, absl::MakeSpan(out.offsets)).ok());
  REQUIRE((*w)->Sync().ok());
  REQUIRE((*w)->Close().ok());
  out.path = dir.path() + "/" + entrylog::LogFileName(7);
  return out;
}

TEST_CASE(
    "an entry log record header from the data's own crc is byte-identical "
    "to one computed over the data",
    "[storage]") {
  const uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int round = 0; round < 100; ++round) {
    std::string data(rng() % 20000, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    const uint64_t ledger = rng();
    const int64_t entry = static_cast<int64_t>(rng() % 1000000);
    char straight[entrylog::kRecordHeaderSize];
    char combined[entrylog::kRecordHeaderSize];
    entrylog::EncodeRecordHeader(ledger, entry, data, straight);
    entrylog::EncodeRecordHeaderWithDataCrc(
        ledger, entry, data.size(), crc32c::Value(data.data(), data.size()),
        combined);
    CHECK(std::memcmp(straight, combined, sizeof(straight)) == 0);
    CHECK(entrylog::RecordCrcMatches(combined, data));
  }
}

TEST_CASE("entry log reader returns each record the writer appended",
          "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 50);
  auto r = EntryLogReader::Open(Env::Default(), w.path);
  REQUIRE(r.ok());
  CHECK((*r)->log_id() == 7);
  for (int i = 0; i < 50; ++i) {
    auto got = (*r)->Read(w.offsets[i], 1, i);
    REQUIRE(got.ok());
    CHECK(IsEntry(*got, 1, i, 200));
  }
}

TEST_CASE("entry log reader refuses a CRC-corrupt entry with DataLoss",
          "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 3);
  FlipByte(w.path, w.offsets[1] + entrylog::kRecordHeaderSize + 50);
  auto r = EntryLogReader::Open(Env::Default(), w.path);
  REQUIRE(r.ok());
  CHECK((*r)->Read(w.offsets[0], 1, 0).ok());
  auto bad = (*r)->Read(w.offsets[1], 1, 1);
  CHECK(absl::IsDataLoss(bad.status()));
  CHECK((*r)->Read(w.offsets[2], 1, 2).ok());
}

TEST_CASE("entry log reader refuses a location holding another entry",
          "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 3);
  auto r = EntryLogReader::Open(Env::Default(), w.path);
  REQUIRE(r.ok());
  CHECK(absl::IsDataLoss((*r)->Read(w.offsets[1], 1, 2).status()));
  CHECK(absl::IsDataLoss((*r)->Read(w.offsets[1] + 1, 1, 1).status()));
}

TEST_CASE("entry log with a damaged file header is refused", "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 1);
  FlipByte(w.path, 2);
  CHECK(
      absl::IsDataLoss(EntryLogReader::Open(Env::Default(), w.path).status()));
}

TEST_CASE(
    "entry log scanner reads every record and treats a cut record as "
    "a torn tail",
    "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 10);
  auto size = Env::Default()->GetFileSize(w.path);
  REQUIRE(size.ok());
  REQUIRE(Env::Default()->Truncate(w.path, *size - 10).ok());
  auto r = EntryLogReader::Open(Env::Default(), w.path);
  REQUIRE(r.ok());
  EntryLogScanner scanner(**r, 0, UINT64_MAX, 4096);
  ScannedRecord rec;
  int n = 0;
  while (true) {
    auto more = scanner.Next(&rec);
    REQUIRE(more.ok());
    if (!*more) break;
    CHECK(rec.entry_id == n);
    CHECK(rec.offset == w.offsets[n]);
    ++n;
  }
  CHECK(n == 9);
  CHECK(scanner.torn_tail());
}

TEST_CASE("entry log scanner reports a corrupt record in the middle",
          "[storage]") {
  TempDir dir;
  Written w = WriteLog(dir, 10);
  FlipByte(w.path, w.offsets[4] + entrylog::kRecordHeaderSize + 3);
  auto r = EntryLogReader::Open(Env::Default(), w.path);
  REQUIRE(r.ok());
  EntryLogScanner scanner(**r, 0, UINT64_MAX);
  ScannedRecord rec;
  absl::Status error;
  int n = 0;
  while (true) {
    auto more = scanner.Next(&rec);
    if (!more.ok()) {
      error = more.status();
      break;
    }
    if (!*more) break;
    ++n;
  }
  CHECK(n == 4);
  CHECK(absl::IsDataLoss(error));
}

}  // namespace
}  // namespace bk::bookie
