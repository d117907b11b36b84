// TuneMalloc: freed memory at the top of a heap stays in the process, and
// blocks up to 32 MiB come from the heaps, so a burst freed on one thread
// is not handed back to the kernel and faulted in again.

#include "common/malloc_tuning.h"

#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define BK_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define BK_TEST_SANITIZED 1
#endif

// A sanitizer replaces malloc (glibc's settings and statistics then say
// nothing about the allocator in use), so the case is built without one.
#if !defined(BK_TEST_SANITIZED)

namespace bk {
namespace {

constexpr size_t kBlock = 64 << 10;
constexpr int kBlocks = 128;  // 8 MiB, far above glibc's default trim

// Allocates kBlocks blocks, touches them and frees them, newest first, so
// the heap's top chunk grows with every free.
void AllocateTouchFree() {
  std::vector<char*> blocks;
  for (int i = 0; i < kBlocks; ++i) {
    char* p = static_cast<char*>(std::malloc(kBlock));
    REQUIRE(p != nullptr);
    std::memset(p, 0x5a, kBlock);
    blocks.push_back(p);
  }
  while (!blocks.empty()) {
    std::free(blocks.back());
    blocks.pop_back();
  }
}

TEST_CASE("a burst freed on a thread stays in the process",
          "[common][malloc]") {
  REQUIRE(TuneMalloc());
  const size_t mapped_before = mallinfo2().hblkhd;
  // On a thread of its own, as gRPC's threads receive a range read: its
  // blocks come from a thread arena, whose heap shrinks by madvise.
  std::thread t(AllocateTouchFree);
  t.join();
  AllocateTouchFree();  // and the main arena, which shrinks by sbrk
  const struct mallinfo2 after = mallinfo2();
  // Both bursts' bytes are free in the heaps, not returned to the kernel.
  CHECK(after.fordblks >= 2 * kBlocks * kBlock);
  // No block of the bursts was its own mmap (glibc's default threshold
  // starts at 128 KiB and moves; a 1 MiB block would be mmapped).
  void* big = std::malloc(1 << 20);
  REQUIRE(big != nullptr);
  CHECK(mallinfo2().hblkhd == mapped_before);
  std::free(big);
}

}  // namespace
}  // namespace bk

#endif  // !BK_TEST_SANITIZED
