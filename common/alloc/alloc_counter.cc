// Replaces global operator new/delete in a benchmark binary to count heap
// allocations (alloc_counter.h).

#include "common/alloc/alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_allocs{0};
std::atomic<uint64_t> g_large_allocs{0};
}  // namespace

void* operator new(size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (n >= 1024) g_large_allocs.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace bk::alloc {
uint64_t Allocations() { return g_allocs.load(std::memory_order_relaxed); }
uint64_t LargeAllocations() {
  return g_large_allocs.load(std::memory_order_relaxed);
}
}  // namespace bk::alloc
