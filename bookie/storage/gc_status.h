// GcStatus: what the storage's background GC thread is doing and has done,
// for the admin API (GET /api/v1/bookie/gc_details, BookKeeper's
// GarbageCollectionStatus) and operators. A plain snapshot.

#ifndef BK_BOOKIE_STORAGE_GC_STATUS_H_
#define BK_BOOKIE_STORAGE_GC_STATUS_H_

#include <cstdint>

namespace bk::bookie {

struct GcStatus {
  bool force_requested = false;   // a forced pass is asked for or running
  bool running = false;           // a pass is running now
  bool major_compacting = false;  // ... compacting at the major threshold
  bool minor_compacting = false;  // ... compacting at the minor threshold
  // Wall-clock end of the last pass of each kind, ms since the epoch; 0:
  // none yet.
  int64_t last_major_compaction_ms = 0;
  int64_t last_minor_compaction_ms = 0;
  uint64_t major_compactions = 0;  // passes at the major threshold
  uint64_t minor_compactions = 0;  // passes at the minor threshold
  uint64_t passes = 0;             // every finished pass
  uint64_t forced_passes = 0;      // passes run because of RequestGc
};

}  // namespace bk::bookie

#endif  // BK_BOOKIE_STORAGE_GC_STATUS_H_
