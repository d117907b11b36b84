// TuneMallocForAddPath: glibc malloc settings for a bookie process.
//
// The add path allocates its entries' bytes on a gRPC thread (in blocks of
// up to 256 KiB, bookie/storage/entry_arena.h; before those, one allocation
// per entry) and frees them in bulk on the flusher thread once the write
// cache half is in an entry log. With glibc's defaults the freed memory is
// handed back to the kernel (heap trimming, arena shrinking) and faulted in
// again a moment later; consolidating and re-faulting cost about 0.8 us of
// CPU per 1 KiB add in bookie_add_bench (12 %, measured with one
// allocation per entry). Fixed thresholds keep that memory in the process:
// at most the write cache's size plus the in-flight adds, which the bookie
// needs again at once.
//
// Call once at start-up, before threads start. Process-wide; harmless for
// other allocators (mallopt is then a no-op returning 0).

#ifndef BK_BOOKIE_SERVICE_MALLOC_TUNING_H_
#define BK_BOOKIE_SERVICE_MALLOC_TUNING_H_

namespace bk::bookie {

void TuneMallocForAddPath();

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SERVICE_MALLOC_TUNING_H_
