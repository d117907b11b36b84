// Entry logs written with O_DIRECT (entryLogDirectIo): version 2 logs whose
// syncs pad the last block, read back by location and by the scanner.

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "bookie/storage/entry_log_format.h"
#include "bookie/storage/entry_log_reader.h"
#include "bookie/storage/entry_log_writer.h"
#include "test/unit/storage/storage_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;
constexpr uint64_t kBlock = entrylog::kPaddingAlignment;

// Data of `n` bytes derived from the entry id, never all zeros.
std::string Data(int64_t entry, size_t n) {
  std::string d(n, '\0');
  for (size_t i = 0; i < n; ++i) {
    d[i] = static_cast<char>((entry * 13 + static_cast<int64_t>(i)) % 251 + 1);
  }
  return d;
}

struct Log {
  std::vector<std::string> data;
  std::vector<uint64_t> offsets;
  std::string path;
};

// Reads the whole log with a scanner; every record must match `log`.
void ScanAll(const Log& log, size_t chunk) {
  auto r = EntryLogReader::Open(Env::Default(), log.path);
  REQUIRE(r.ok());
  CHECK((*r)->padded());
  EntryLogScanner scanner(**r, 0, UINT64_MAX, chunk);
  ScannedRecord rec;
  size_t n = 0;
  while (true) {
    auto more = scanner.Next(&rec);
    REQUIRE(more.ok());
    if (!*more) break;
    REQUIRE(n < log.data.size());
    CHECK(rec.entry_id == static_cast<int64_t>(n));
    CHECK(rec.offset == log.offsets[n]);
    CHECK(rec.data == log.data[n]);
    ++n;
  }
  CHECK(n == log.data.size());
  CHECK_FALSE(scanner.torn_tail());
}

TEST_CASE(
    "a direct entry log pads each sync to a block and reads back every "
    "record by location and by scanner",
    "[storage]") {
  const uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir dir(TempDir::Where::kDisk);
  REQUIRE_FALSE(dir.path().empty());
  auto w = EntryLogWriter::Create(Env::Default(), dir.path(), 3, false, 0,
                                  /*direct_io=*/true);
  REQUIRE(w.ok());
  REQUIRE((*w)->direct());
  // The header block is padded: the first record starts at the next block.
  CHECK((*w)->size() == kBlock);
  Log log;
  log.path = dir.Sub(entrylog::LogFileName(3));
  auto append = [&](size_t n) {
    const int64_t id = static_cast<int64_t>(log.data.size());
    log.data.push_back(Data(id, n));
    uint64_t offset = 0;
    EntryLogItem item{9, id, log.data.back()};
    REQUIRE((*w)->Append({&item, 1}, {&offset, 1}).ok());
    log.offsets.push_back(offset);
  };
  // Syncs that leave 0 to 5 bytes before a block's end: below 4 the
  // padding takes the next block too, so that it holds a length field.
  for (uint64_t gap = 0; gap <= 5; ++gap) {
    const uint64_t pos = (*w)->size() % kBlock;
    uint64_t n =
        (2 * kBlock - pos - gap - entrylog::kRecordHeaderSize) % kBlock;
    if (n < 100) n += kBlock;
    append(n);
    REQUIRE((*w)->size() % kBlock == (kBlock - gap) % kBlock);
    REQUIRE((*w)->Sync().ok());
    CHECK((*w)->size() % kBlock == 0);
  }
  // Random records, some larger than the 1 MiB the writer gathers before a
  // write, with random syncs between them.
  for (int i = 0; i < 300; ++i) {
    append(rng() % 50 == 0 ? 1 + rng() % (3 << 20) : 1 + rng() % 9000);
    if (rng() % 10 == 0) REQUIRE((*w)->Sync().ok());
  }
  REQUIRE((*w)->Sync().ok());
  const uint64_t size = (*w)->size();
  REQUIRE((*w)->Close().ok());
  auto on_disk = Env::Default()->GetFileSize(log.path);
  REQUIRE(on_disk.ok());
  CHECK(*on_disk == size);
  CHECK(size % kBlock == 0);

  auto r = EntryLogReader::Open(Env::Default(), log.path);
  REQUIRE(r.ok());
  for (size_t i = 0; i < log.data.size(); ++i) {
    auto got = (*r)->Read(log.offsets[i], 9, static_cast<int64_t>(i));
    REQUIRE(got.ok());
    CHECK(**got == log.data[i]);
  }
  ScanAll(log, 4096);
  ScanAll(log, 1 << 20);
}

TEST_CASE(
    "a direct entry log falls back to a buffered version 1 log where "
    "O_DIRECT is not offered",
    "[storage]") {
  // An EnvWrapper does not forward NewDirectWritableFile: it refuses, as
  // tmpfs does.
  EnvWrapper env(Env::Default());
  TempDir dir(TempDir::Where::kDisk);
  auto w = EntryLogWriter::Create(&env, dir.path(), 4, false, 0,
                                  /*direct_io=*/true);
  REQUIRE(w.ok());
  CHECK_FALSE((*w)->direct());
  CHECK((*w)->size() == entrylog::kFileHeaderSize);
  const std::string data = Data(0, 1000);
  EntryLogItem item{9, 0, data};
  uint64_t offset = 0;
  REQUIRE((*w)->Append({&item, 1}, {&offset, 1}).ok());
  REQUIRE((*w)->Sync().ok());
  CHECK((*w)->size() ==
        entrylog::kFileHeaderSize + entrylog::kRecordHeaderSize + 1000);
  REQUIRE((*w)->Close().ok());
  auto r =
      EntryLogReader::Open(Env::Default(), dir.Sub(entrylog::LogFileName(4)));
  REQUIRE(r.ok());
  CHECK_FALSE((*r)->padded());
  auto got = (*r)->Read(offset, 9, 0);
  REQUIRE(got.ok());
  CHECK(**got == data);
}

TEST_CASE("zeros after a record of a version 1 log are still corruption",
          "[storage]") {
  TempDir dir;
  const std::string path = dir.Sub(entrylog::LogFileName(5));
  {
    auto w = EntryLogWriter::Create(Env::Default(), dir.path(), 5);
    REQUIRE(w.ok());
    const std::string data = Data(0, 500);
    EntryLogItem item{9, 0, data};
    uint64_t offset = 0;
    REQUIRE((*w)->Append({&item, 1}, {&offset, 1}).ok());
    REQUIRE((*w)->Sync().ok());
    REQUIRE((*w)->Close().ok());
  }
  // A block of zeros where the next record would be.
  auto f = Env::Default()->NewAppendableFile(path);
  REQUIRE(f.ok());
  REQUIRE((*f)->Append(std::string(kBlock, '\0')).ok());
  REQUIRE((*f)->Close().ok());
  auto r = EntryLogReader::Open(Env::Default(), path);
  REQUIRE(r.ok());
  CHECK_FALSE((*r)->padded());
  EntryLogScanner scanner(**r, 0, UINT64_MAX);
  ScannedRecord rec;
  auto first = scanner.Next(&rec);
  REQUIRE(first.ok());
  CHECK(*first);
  auto second = scanner.Next(&rec);
  CHECK(absl::IsDataLoss(second.status()));
}

TEST_CASE("a bookie refuses an entry log of a version it does not know",
          "[storage]") {
  char header[entrylog::kFileHeaderSize];
  for (uint32_t version : {1u, 2u, 3u}) {
    entrylog::EncodeFileHeader(77, header, version);
    uint32_t got = 0;
    auto id = entrylog::DecodeFileHeader(header, sizeof(header), &got);
    if (version == 3) {
      CHECK(absl::IsDataLoss(id.status()));
      CHECK(absl::StrContains(id.status().message(), "unsupported version 3"));
    } else {
      REQUIRE(id.ok());
      CHECK(*id == 77);
      CHECK(got == version);
    }
  }
}

}  // namespace
}  // namespace bk::bookie
