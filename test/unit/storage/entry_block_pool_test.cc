// EntryBlockPool: blocks reserved once, touched at start when asked, handed
// out until none is free and given back by their last owner from any
// thread; EntryArena takes its full-size blocks from it.

#include "bookie/storage/entry_block_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bookie/storage/entry_arena.h"

namespace bk::bookie {
namespace {

// How many of the region's pages are resident.
size_t ResidentPages(const EntryBlockPool& pool) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec(pool.region_bytes() / page);
  REQUIRE(mincore(const_cast<char*>(pool.region()), pool.region_bytes(),
                  vec.data()) == 0);
  size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

std::shared_ptr<EntryBlockPool> MakePool(uint64_t bytes, bool pre_touch) {
  auto pool = EntryBlockPool::Create(bytes, pre_touch);
  REQUIRE(pool.ok());
  return *std::move(pool);
}

TEST_CASE("a pre-touched entry block pool is resident before any take",
          "[storage]") {
  constexpr uint64_t kBytes = 4 * EntryBlockPool::kBlockBytes;
  auto touched = MakePool(kBytes, /*pre_touch=*/true);
  REQUIRE(touched->pre_touched());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  CHECK(ResidentPages(*touched) == touched->region_bytes() / page);

  // Without pre-touch nothing is resident until a block is written.
  auto lazy = MakePool(kBytes, /*pre_touch=*/false);
  CHECK_FALSE(lazy->pre_touched());
  CHECK(ResidentPages(*lazy) == 0);
  std::shared_ptr<char[]> b = lazy->Take();
  REQUIRE(b != nullptr);
  b[0] = 'x';
  CHECK(ResidentPages(*lazy) >= 1);
}

TEST_CASE("an entry block pool rounds up to whole blocks and runs dry",
          "[storage]") {
  // One byte more than two blocks: three blocks.
  auto pool = MakePool(2 * EntryBlockPool::kBlockBytes + 1, false);
  CHECK(pool->blocks() == 3);
  CHECK(pool->region_bytes() == 3 * EntryBlockPool::kBlockBytes);

  std::vector<std::shared_ptr<char[]>> out;
  std::set<const char*> distinct;
  for (int i = 0; i < 3; ++i) {
    out.push_back(pool->Take());
    REQUIRE(out.back() != nullptr);
    distinct.insert(out.back().get());
    // Each block lies inside the region, on a block boundary.
    const size_t off = static_cast<size_t>(out.back().get() - pool->region());
    CHECK(off % EntryBlockPool::kBlockBytes == 0);
    CHECK(off < pool->region_bytes());
  }
  CHECK(distinct.size() == 3);
  CHECK(pool->free_blocks() == 0);
  CHECK(pool->Take() == nullptr);

  // The last owner gives a block back, and it is the next one taken.
  const char* given = out[1].get();
  std::shared_ptr<char[]> second_owner = out[1];
  out[1] = nullptr;
  CHECK(pool->free_blocks() == 0);
  second_owner = nullptr;
  CHECK(pool->free_blocks() == 1);
  std::shared_ptr<char[]> again = pool->Take();
  CHECK(again.get() == given);

  auto empty = MakePool(0, true);
  CHECK(empty->blocks() == 0);
  CHECK(empty->Take() == nullptr);
}

TEST_CASE("entry blocks outlive their pool and return from other threads",
          "[storage]") {
  auto pool = MakePool(8 * EntryBlockPool::kBlockBytes, true);
  std::vector<std::shared_ptr<char[]>> out;
  for (int i = 0; i < 8; ++i) {
    out.push_back(pool->Take());
    REQUIRE(out.back() != nullptr);
    std::memset(out.back().get(), 'a' + i, EntryBlockPool::kBlockBytes);
  }
  // Half are dropped on other threads while the pool still exists.
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([b = std::move(out[i])]() mutable { b = nullptr; });
  }
  for (auto& t : threads) t.join();
  CHECK(pool->free_blocks() == 4);

  // The pool goes; the blocks still out keep their bytes (the sanitizers
  // and the byte check would catch a freed mapping).
  pool = nullptr;
  for (int i = 4; i < 8; ++i) {
    const char want = static_cast<char>('a' + i);
    CHECK(out[i][0] == want);
    CHECK(out[i][EntryBlockPool::kBlockBytes - 1] == want);
  }
  out.clear();  // the mapping goes with the last block
}

TEST_CASE("an arena takes its full-size blocks from the pool", "[storage]") {
  auto pool = MakePool(3 * EntryBlockPool::kBlockBytes, true);
  std::vector<EntryBuffer> kept;
  {
    EntryArena arena(pool);
    const std::string kib(1024, 'p');
    // 64 + 128 KiB from malloc (192 entries), then 256 KiB blocks of 256
    // entries: three from the pool, the fourth from malloc once it is dry.
    for (int i = 0; i < 192 + 4 * 256; ++i) kept.push_back(arena.Copy(kib));
    CHECK(arena.blocks() == 6);
    CHECK(arena.pool_blocks() == 3);
    CHECK(pool->free_blocks() == 0);
    // A pool block holds its entries back to back, inside the region.
    const char* first = kept[192]->data();
    CHECK(first >= pool->region());
    CHECK(first < pool->region() + pool->region_bytes());
    CHECK(kept[193]->data() == first + kib.size());
    // A large entry gets an exact block of its own, never a pool block.
    EntryBuffer big = arena.Copy(std::string(EntryArena::kMaxBlockBytes, 'b'));
    CHECK(arena.pool_blocks() == 3);
    CHECK(big->size() == EntryArena::kMaxBlockBytes);
    for (const EntryBuffer& e : kept) REQUIRE(*e == kib);
  }
  // The arena is gone; its blocks go back with the entries' last handles.
  CHECK(pool->free_blocks() == 0);
  kept.clear();
  CHECK(pool->free_blocks() == 3);
}

}  // namespace
}  // namespace bk::bookie
