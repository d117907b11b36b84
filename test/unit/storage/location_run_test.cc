// The value format of the index's location records (location_run.h).

#include "bookie/storage/location_run.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "proto/coding.h"

namespace bk::bookie {
namespace {

using Runs = std::vector<std::pair<size_t, size_t>>;

// Entries first.. of one log, each record `size` bytes after the last.
std::vector<LocatedEntry> Contiguous(uint64_t first, size_t n, uint64_t log,
                                     uint64_t offset, uint64_t size) {
  std::vector<LocatedEntry> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back({first + i, {log, offset + i * size}});
  }
  return v;
}

TEST_CASE("a run of one is the 16-byte (log id, offset) value of old indexes",
          "[storage][index]") {
  const std::vector<LocatedEntry> one = {{42, {7, 123456}}};
  const std::string value = locrun::Encode(one);
  REQUIRE(value.size() == 16);
  CHECK(coding::GetFixed64BE(value.data()) == 7);
  CHECK(coding::GetFixed64BE(value.data() + 8) == 123456);
  auto run = locrun::RunView::Parse(42, value);
  REQUIRE(run.ok());
  CHECK(run->count() == 1);
  CHECK(run->last() == 42);
  CHECK(run->Covers(42));
  CHECK_FALSE(run->Covers(41));
  CHECK_FALSE(run->Covers(43));
  CHECK(run->At(42) == EntryLocation{7, 123456});
}

TEST_CASE("a run's value gives back every entry's location",
          "[storage][index]") {
  // Uneven record sizes: offsets are kept, not derived from a size.
  std::vector<LocatedEntry> v;
  uint64_t off = 1000;
  for (uint64_t e = 10; e < 10 + locrun::kMaxRunEntries; ++e) {
    v.push_back({e, {3, off}});
    off += 40 + (e * 37) % 5000;
  }
  REQUIRE(locrun::SplitRuns(v) == Runs{{0, v.size()}});
  const std::string value = locrun::Encode(v);
  CHECK(value.size() == 16 + 4 * (v.size() - 1));
  auto run = locrun::RunView::Parse(10, value);
  REQUIRE(run.ok());
  CHECK(run->first() == 10);
  CHECK(run->count() == v.size());
  for (const LocatedEntry& e : v) CHECK(run->At(e.entry) == e.loc);
  std::vector<LocatedEntry> all;
  run->AppendAll(&all);
  CHECK(all == v);
}

TEST_CASE("runs break at a gap, a new log, a backward offset and at 4 GiB",
          "[storage][index]") {
  SECTION("a gap in the ids") {
    auto v = Contiguous(0, 5, 1, 0, 100);
    v[3].entry = 10;
    v[4].entry = 11;
    CHECK(locrun::SplitRuns(v) == Runs{{0, 3}, {3, 5}});
  }
  SECTION("a new log") {
    auto v = Contiguous(0, 4, 1, 0, 100);
    v[2].loc = {2, 0};
    v[3].loc = {2, 100};
    CHECK(locrun::SplitRuns(v) == Runs{{0, 2}, {2, 4}});
  }
  SECTION("an offset that does not grow") {
    auto v = Contiguous(0, 3, 1, 500, 100);
    v[2].loc.offset = v[1].loc.offset;
    CHECK(locrun::SplitRuns(v) == Runs{{0, 2}, {2, 3}});
  }
  SECTION("more than 4 GiB past the run's first record") {
    const uint64_t big = std::numeric_limits<uint32_t>::max();
    std::vector<LocatedEntry> v = {
        {0, {1, 10}}, {1, {1, 10 + big}}, {2, {1, 11 + big}}};
    CHECK(locrun::SplitRuns(v) == Runs{{0, 2}, {2, 3}});
    const std::string value = locrun::Encode({v.data(), 2});
    auto run = locrun::RunView::Parse(0, value);
    REQUIRE(run.ok());
    CHECK(run->At(1) == v[1].loc);
  }
  SECTION("the longest run") {
    auto v = Contiguous(0, 2 * locrun::kMaxRunEntries + 1, 1, 0, 50);
    const size_t m = locrun::kMaxRunEntries;
    CHECK(locrun::SplitRuns(v) == Runs{{0, m}, {m, 2 * m}, {2 * m, 2 * m + 1}});
  }
  SECTION("a shorter limit; 1 is one record per entry") {
    auto v = Contiguous(0, 7, 1, 0, 50);
    CHECK(locrun::SplitRuns(v, 3) == Runs{{0, 3}, {3, 6}, {6, 7}});
    const Runs singles = locrun::SplitRuns(v, 1);
    REQUIRE(singles.size() == 7);
    for (size_t i = 0; i < 7; ++i) {
      CHECK(singles[i] == std::pair<size_t, size_t>{i, i + 1});
      CHECK(locrun::Encode({v.data() + i, 1}).size() == locrun::kHeaderSize);
    }
  }
  SECTION("nothing") { CHECK(locrun::SplitRuns({}).empty()); }
}

TEST_CASE("a location value of a bad size is data loss", "[storage][index]") {
  for (size_t size : {0, 8, 15, 17, 18, 19, 21}) {
    INFO("size " << size);
    auto run = locrun::RunView::Parse(5, std::string(size, 'x'));
    CHECK(run.status().code() == absl::StatusCode::kDataLoss);
  }
  // A run that would pass the last id.
  auto run = locrun::RunView::Parse(std::numeric_limits<uint64_t>::max(),
                                    std::string(20, '\0'));
  CHECK(run.status().code() == absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace bk::bookie
