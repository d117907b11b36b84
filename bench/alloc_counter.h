// Heap allocation counts of a benchmark process. alloc_counter.cc replaces
// the global operator new/delete with counting versions around malloc/free,
// so linking it (library bk_bench_alloc) changes the allocator of the whole
// program: only the benchmarks of bench/ link it, never a library or a tool.

#ifndef BK_BENCH_ALLOC_COUNTER_H_
#define BK_BENCH_ALLOC_COUNTER_H_

#include <cstdint>

namespace bk::bench {

// Heap allocations made by this process so far, and those of at least
// 1 KiB, where a copy of a payload would have to land.
uint64_t Allocations();
uint64_t LargeAllocations();

}  // namespace bk::bench

#endif  // BK_BENCH_ALLOC_COUNTER_H_
