// Direct (O_DIRECT) journal writes: the Env's direct file, the aligned and
// padded group image, and the journal's files and replay with
// journalDirectIo on a real disk, and its fallback where direct writes are
// not offered.

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <numeric>
#include <random>

#include "bookie/journal/aligned_group.h"
#include "bookie/journal/journal.h"
#include "common/fault_env.h"
#include "test/unit/journal/journal_test_util.h"

namespace bk::bookie {
namespace {

using bk::testing::TempDir;

using testing::AddWaiter;
using testing::Notify;
using testing::Payload;
using RT = journal_format::RecordType;
namespace jf = journal_format;

// A fresh directory on the disk (/var/tmp), removed on destruction.
TEST_CASE("padding takes any size to the next boundary with room for a header",
          "[journal]") {
  CHECK(jf::PaddingFor(0, 4096) == 0);
  CHECK(jf::PaddingFor(8192, 4096) == 0);
  CHECK(jf::PaddingFor(1, 4096) == 4095);
  CHECK(jf::PaddingFor(4096 - jf::kRecordHeaderSize, 4096) ==
        jf::kRecordHeaderSize);
  // A gap smaller than a record header is padded to the boundary after.
  CHECK(jf::PaddingFor(4096 - jf::kRecordHeaderSize + 1, 4096) ==
        jf::kRecordHeaderSize - 1 + 4096);
  CHECK(jf::PaddingFor(4095, 4096) == 4097);
}

TEST_CASE("an aligned group is the records then one padding record",
          "[journal]") {
  AlignedGroup g(4096);
  for (size_t bytes :
       {size_t{1}, size_t{4068}, size_t{4070}, size_t{4096}, size_t{70000}}) {
    INFO(bytes << " record bytes");
    const std::string records(bytes, 'r');
    g.Reset(bytes);
    g.Append(records.substr(0, bytes / 2));
    g.Append(records.substr(bytes / 2));
    const absl::string_view image = g.Seal(testing::SaltOf(3));
    CHECK(reinterpret_cast<uintptr_t>(image.data()) % 4096 == 0);
    CHECK(image.size() % 4096 == 0);
    CHECK(image.substr(0, bytes) == records);
    CHECK(g.padding_bytes() == image.size() - bytes);
    if (g.padding_bytes() > 0) {
      const jf::DecodedRecordHeader h =
          jf::DecodeRecordHeader(image.substr(bytes, jf::kRecordHeaderSize));
      CHECK(h.type == static_cast<uint8_t>(RT::kPadding));
      CHECK(h.length == g.padding_bytes() - jf::kRecordHeaderSize);
      CHECK(jf::RecordCrcMatches(image.substr(bytes, jf::kRecordHeaderSize),
                                 image.substr(bytes + jf::kRecordHeaderSize),
                                 testing::SaltOf(3)));
    }
  }
}

TEST_CASE("a direct file takes aligned writes and refuses others for good",
          "[journal]") {
  TempDir dir(TempDir::Where::kDisk);
  auto f = Env::Default()->NewDirectWritableFile(dir.Sub("d"));
  REQUIRE(f.ok());  // /var/tmp is the root ext4 here, which offers O_DIRECT
  AlignedGroup g(kDirectIoAlignment);
  g.Reset(5000);
  g.Append(std::string(5000, 'x'));
  const absl::string_view image = g.Seal(0);
  REQUIRE((*f)->Append(image).ok());
  CHECK((*f)->Size() == 8192);
  REQUIRE((*f)->Sync().ok());
  const absl::Status bad = (*f)->Append("unaligned");
  CHECK(absl::IsInvalidArgument(bad));
  CHECK_FALSE((*f)->Append(image).ok());  // broken from now on
  CHECK((*f)->Size() == 8192);
  REQUIRE((*f)->Close().code() == bad.code());
  auto data = Env::Default()->ReadFileToString(dir.Sub("d"));
  REQUIRE(data.ok());
  CHECK(*data == image);
}

TEST_CASE("an Env that does not offer direct writes says Unimplemented",
          "[journal]") {
  TempDir dir(TempDir::Where::kDisk);
  FaultInjectionEnv env(Env::Default());  // an EnvWrapper: never forwards it
  auto f = env.NewDirectWritableFile(dir.Sub("d"));
  CHECK(absl::IsUnimplemented(f.status()));
}

// Adds records of `sizes` one group each (direct groups unless `direct`
// is false) and returns them as replayed.
std::vector<std::string> AddAndReplay(Env* env, const std::string& jdir,
                                      const std::vector<size_t>& sizes,
                                      JournalStats* stats, bool direct = true) {
  JournalOptions o;
  o.dirs = {jdir};
  o.buffered_entries_threshold = 1;  // one group per add
  o.direct_io = direct;
  {
    Journal j(env, o);
    REQUIRE(j.Replay([](const JournalRecordView&) {
               return absl::OkStatus();
             }).ok());
    REQUIRE(j.Start().ok());
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto w = std::make_shared<AddWaiter>();
      REQUIRE(j.Add(RT::kEntry, 7, static_cast<int64_t>(i),
                    Payload(std::string(sizes[i], static_cast<char>('a' + i))),
                    Notify(w))
                  .ok());
      REQUIRE(w->Ready());
      REQUIRE(w->future.get().ok());
      const JournalMark at = j.CurrentMark();
      REQUIRE(at.positions.size() == 1);
      INFO("after add " << i << " the file ends at " << at.positions[0].offset);
      if (direct) CHECK(at.positions[0].offset % kDirectIoAlignment == 0);
    }
    *stats = j.Stats();
  }
  std::vector<std::string> replayed;
  Journal j(env, o);
  auto r = j.Replay([&](const JournalRecordView& rec) {
    replayed.emplace_back(rec.payload);
    return absl::OkStatus();
  });
  REQUIRE(r.ok());
  CHECK(r->records == sizes.size());
  CHECK(r->torn_bytes_cut == 0);
  return replayed;
}

TEST_CASE(
    "a direct journal ends every group on a 4 KiB boundary and "
    "replays exactly its records",
    "[journal]") {
  const uint32_t seed = 20261130;
  std::printf("direct journal test seed %u\n", seed);
  std::mt19937 rng(seed);
  // Sizes that leave every kind of gap, a record bigger than the first
  // image buffer, and random ones.
  std::vector<size_t> sizes = {0,    1,    4000, 4040,   4041,
                               4068, 4096, 8164, 1 << 20};
  for (int i = 0; i < 40; ++i) {
    sizes.push_back(std::uniform_int_distribution<size_t>(0, 20000)(rng));
  }
  // The POSIX Env writes with O_DIRECT; the fault Env does not offer it, so
  // the journal falls back to aligned groups through the page cache.
  FaultInjectionEnv fault_env(Env::Default());
  for (Env* env : {Env::Default(), static_cast<Env*>(&fault_env)}) {
    INFO((env == Env::Default() ? "direct" : "fallback"));
    TempDir dir(TempDir::Where::kDisk);
    JournalStats stats;
    const std::vector<std::string> replayed =
        AddAndReplay(env, dir.Sub("journal"), sizes, &stats);
    REQUIRE(replayed.size() == sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      CHECK(replayed[i] == std::string(sizes[i], static_cast<char>('a' + i)));
    }
    CHECK(stats.padding_bytes > 0);
    CHECK(stats.padding_bytes < sizes.size() * 2 * kDirectIoAlignment);
    // Every payload copied once, into the aligned image, and counted.
    const uint64_t payload =
        std::accumulate(sizes.begin(), sizes.end(), static_cast<uint64_t>(0));
    CHECK(stats.payload_bytes == payload);
    CHECK(stats.payload_bytes_copied == payload);
  }
}

TEST_CASE(
    "a page-cache journal writes its payloads from the callers' buffers: no "
    "payload byte copied in user space",
    "[journal]") {
  const std::vector<size_t> sizes = {0, 1, 1024, 4096, 16384, 1 << 20};
  TempDir dir(TempDir::Where::kDisk);
  JournalStats stats;
  const std::vector<std::string> replayed = AddAndReplay(
      Env::Default(), dir.Sub("journal"), sizes, &stats, /*direct=*/false);
  REQUIRE(replayed.size() == sizes.size());
  const uint64_t payload =
      std::accumulate(sizes.begin(), sizes.end(), static_cast<uint64_t>(0));
  CHECK(stats.payload_bytes == payload);
  CHECK(stats.payload_bytes_copied == 0);
}

}  // namespace
}  // namespace bk::bookie
