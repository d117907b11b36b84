// TuneMalloc: glibc malloc settings for a process that allocates bursts of
// message-sized blocks on one thread and frees them on another: a bookie
// (its add path) and a client reading ranges (a catch-up).
//
// - A bookie's add path allocates its entries' bytes on a gRPC thread (in
//   blocks of up to 256 KiB, bookie/storage/entry_arena.h) and frees them in
//   bulk on the flusher thread once the write cache half is in an entry log.
// - A client's range read receives messages of up to 256 entries on gRPC's
//   threads, and the reader frees each entry once delivered.
//
// With glibc's defaults the freed memory at the top of a heap is handed
// back to the kernel (heap trimming, arena shrinking: madvise) and faulted
// in again a moment later. Each madvise also flushes the other CPUs' TLBs
// (an inter-processor interrupt, a trip through the hypervisor on a VM).
// Measured: about 0.8 us of CPU per 1 KiB add in bookie_add_bench (one
// allocation per entry), and half of a client's CPU per entry read in
// `bkbench read` (bench/results/bkbench_read.md, 2026-12-05 21:15). Fixed
// thresholds keep that memory in the process: at most what the process had
// in use at its busiest, which it needs again at once.
//
// Call once at start-up, before threads start. Process-wide; harmless for
// other allocators (mallopt is then a no-op). Returns whether every
// setting was taken (false: not glibc, or glibc refused one).

#ifndef BK_COMMON_MALLOC_TUNING_H_
#define BK_COMMON_MALLOC_TUNING_H_

namespace bk {

bool TuneMalloc();

}  // namespace bk

#endif  // BK_COMMON_MALLOC_TUNING_H_
