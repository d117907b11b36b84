#include "bookie/service/malloc_tuning.h"

#include <malloc.h>

namespace bk::bookie {

void TuneMallocForAddPath() {
#if defined(__GLIBC__)
  // Keep up to 512 MiB of free memory at the top of a heap instead of
  // returning it after every flush.
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // Grow heaps in 64 MiB steps (address space; pages are touched on use).
  mallopt(M_TOP_PAD, 64 << 20);
  // Serve blocks up to 32 MiB from the heaps, not from fresh mmaps (a
  // fixed value also stops glibc's dynamic threshold from moving).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace bk::bookie
