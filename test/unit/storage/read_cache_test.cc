// ReadCache: copies kept in a ring of segments, evicted a segment at a
// time, blocks that live on with their readers, entries too large to keep
// handed back as private copies.

#include "bookie/storage/read_cache.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

namespace bk::bookie {
namespace {

std::string Body(int64_t entry_id, size_t size = 1024) {
  std::string s(size, static_cast<char>('a' + entry_id % 26));
  s.replace(0, std::min(size, std::to_string(entry_id).size()),
            std::to_string(entry_id), 0, size);
  return s;
}

TEST_CASE("the read cache keeps a copy and hands out that copy", "[storage]") {
  ReadCache cache(64 << 10);
  std::string source = Body(7);
  bool inserted = false;
  EntryBuffer put = cache.Put(1, 7, source, &inserted);
  CHECK(inserted);
  source.assign(source.size(), 'x');
  REQUIRE(put);
  CHECK(*put == Body(7));
  EntryBuffer got = cache.Get(1, 7);
  REQUIRE(got);
  CHECK(got == put);  // the same bytes, not another copy
  CHECK(cache.Get(1, 7) != nullptr);
  CHECK(cache.Get(1, 8) == nullptr);
  CHECK(cache.Get(2, 7) == nullptr);
  CHECK(cache.bytes() == 1024);

  // Entries are immutable: a second Put keeps the first copy.
  EntryBuffer again = cache.Put(1, 7, Body(99), &inserted);
  CHECK_FALSE(inserted);
  CHECK(again == put);
  CHECK(*cache.Get(1, 7) == Body(7));
  CHECK(cache.bytes() == 1024);
}

TEST_CASE("the read cache evicts its oldest segment as a whole", "[storage]") {
  // Four segments of 4 KiB: four entries of 1 KiB each.
  ReadCache cache(16 << 10, 4);
  REQUIRE(cache.segment_bytes() == 4096);
  for (int64_t e = 0; e < 16; ++e) cache.Put(1, e, Body(e));
  CHECK(cache.bytes() == 16 * 1024);
  for (int64_t e = 0; e < 16; ++e) REQUIRE(*cache.Get(1, e) == Body(e));
  CHECK(cache.blocks_allocated() == 4);

  // The seventeenth needs a segment: the oldest (entries 0-3) goes, all of
  // it, and nothing else does.
  cache.Put(1, 16, Body(16));
  for (int64_t e = 0; e < 4; ++e) CHECK(cache.Get(1, e) == nullptr);
  for (int64_t e = 4; e <= 16; ++e) CHECK(*cache.Get(1, e) == Body(e));
  CHECK(cache.bytes() == 13 * 1024);

  // Round the ring twice more: each segment filled takes a block of its
  // own, eight more.
  for (int64_t e = 17; e < 48; ++e) cache.Put(1, e, Body(e));
  CHECK(cache.blocks_allocated() == 12);
  for (int64_t e = 32; e < 48; ++e) CHECK(*cache.Get(1, e) == Body(e));
  CHECK(cache.Get(1, 31) == nullptr);
  CHECK(cache.bytes() == 16 * 1024);
}

TEST_CASE("a read cache entry a reader holds outlives its eviction",
          "[storage]") {
  ReadCache cache(16 << 10, 4);
  for (int64_t e = 0; e < 16; ++e) cache.Put(1, e, Body(e));
  EntryBuffer held = cache.Get(1, 1);  // in the oldest segment
  for (int64_t e = 16; e < 20; ++e) cache.Put(1, e, Body(e));
  // Evicted from the index, but the reader's bytes are intact: the segment
  // took a fresh block and the old one lives with the reader's handle.
  CHECK(cache.Get(1, 1) == nullptr);
  CHECK(*held == Body(1));
  CHECK(cache.blocks_allocated() == 5);
  for (int64_t e = 16; e < 20; ++e) CHECK(*cache.Get(1, e) == Body(e));
}

TEST_CASE("an entry larger than a read cache segment is not kept",
          "[storage]") {
  ReadCache cache(16 << 10, 4);
  const std::string big = Body(3, 5000);
  bool inserted = true;
  EntryBuffer copy = cache.Put(1, 3, big, &inserted);
  CHECK_FALSE(inserted);
  REQUIRE(copy);
  CHECK(*copy == big);
  CHECK(cache.Get(1, 3) == nullptr);
  CHECK(cache.bytes() == 0);
  CHECK(cache.blocks_allocated() == 0);

  // A segment's worth exactly fits.
  cache.Put(1, 4, Body(4, 4096), &inserted);
  CHECK(inserted);
  CHECK(*cache.Get(1, 4) == Body(4, 4096));
}

TEST_CASE("a read cache of no bytes keeps nothing", "[storage]") {
  ReadCache cache(0);
  bool inserted = true;
  EntryBuffer copy = cache.Put(1, 0, Body(0), &inserted);
  CHECK_FALSE(inserted);
  REQUIRE(copy);
  CHECK(*copy == Body(0));
  EntryBuffer empty = cache.Put(1, 1, "");
  REQUIRE(empty);
  CHECK(empty->empty());
  CHECK(cache.Get(1, 0) == nullptr);
  CHECK(cache.Get(1, 1) == nullptr);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("a dropped ledger leaves the read cache, and comes back anew",
          "[storage]") {
  ReadCache cache(16 << 10, 4);
  cache.Put(1, 0, Body(0));
  cache.Put(2, 0, Body(100));
  cache.Put(1, 1, Body(1));
  cache.DropLedger(1);
  CHECK(cache.Get(1, 0) == nullptr);
  CHECK(cache.Get(1, 1) == nullptr);
  CHECK(*cache.Get(2, 0) == Body(100));
  CHECK(cache.bytes() == 1024);

  // Cached again, in a later segment than its first copy: moving the ring
  // past the first segment must not take the new copy with it.
  cache.Put(3, 0, Body(0));   // segment 0 is full now
  cache.Put(1, 0, Body(42));  // segment 1
  for (int64_t e = 0; e < 11; ++e) cache.Put(4, e, Body(e));  // to segment 3
  CHECK(*cache.Get(2, 0) == Body(100));
  cache.Put(4, 11, Body(11));  // segment 0 again: its keys leave
  CHECK(cache.Get(2, 0) == nullptr);
  CHECK(cache.Get(3, 0) == nullptr);
  CHECK(*cache.Get(1, 0) == Body(42));
  CHECK(cache.bytes() == 13 * 1024);
}

TEST_CASE("the read cache serves readers while it is filled", "[storage]") {
  // Two threads put and get the same ledger over a small ring; every entry
  // found must be the one put under its id.
  ReadCache cache(64 << 10, 4);
  std::vector<std::thread> threads;
  std::vector<int> wrong(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&cache, &wrong, t] {
      for (int64_t e = 0; e < 4000; ++e) {
        const int64_t id = (e * 7 + t) % 500;
        if (EntryBuffer b = cache.Get(1, id)) {
          if (*b != Body(id, 512)) ++wrong[t];
        } else {
          EntryBuffer put = cache.Put(1, id, Body(id, 512));
          if (*put != Body(id, 512)) ++wrong[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong[0] == 0);
  CHECK(wrong[1] == 0);
  CHECK(cache.bytes() <= cache.capacity());
}

}  // namespace
}  // namespace bk::bookie
