// Heap allocation counts of a benchmark process. alloc_counter.cc replaces
// the global operator new/delete with counting versions around malloc/free,
// so linking it (library bk_alloc_counter) changes the allocator of the
// whole program: only benchmark executables link it (bench/'s and
// bkbench), never a library, a test or a daemon.

#ifndef BK_COMMON_ALLOC_ALLOC_COUNTER_H_
#define BK_COMMON_ALLOC_ALLOC_COUNTER_H_

#include <cstdint>

namespace bk::alloc {

// Heap allocations made by this process so far, and those of at least
// 1 KiB, where a copy of a payload would have to land.
uint64_t Allocations();
uint64_t LargeAllocations();

}  // namespace bk::alloc

#endif  // BK_COMMON_ALLOC_ALLOC_COUNTER_H_
