#include "common/malloc_tuning.h"

#include <malloc.h>  // also defines __GLIBC__ where it is glibc

namespace bk {

bool TuneMalloc() {
#if defined(__GLIBC__)
  bool ok = true;
  // Keep up to 512 MiB of free memory at the top of a heap instead of
  // returning it after every flush or every batch of entries read.
  ok = mallopt(M_TRIM_THRESHOLD, 512 << 20) == 1 && ok;
  // Grow heaps in 64 MiB steps (address space; pages are touched on use).
  ok = mallopt(M_TOP_PAD, 64 << 20) == 1 && ok;
  // Serve blocks up to 32 MiB from the heaps, not from fresh mmaps (a
  // fixed value also stops glibc's dynamic threshold from moving).
  ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && ok;
  return ok;
#else
  return false;
#endif
}

}  // namespace bk
