// What every benchmark needs to read its result as a ratio: the machine's
// write-and-sync ceiling on the same directory, the fsync regime it ran in,
// percentiles and the process's CPU time. Used by the storage benchmarks
// (bench/) and by bkbench (tools/bkbench/). Allocation counting is not
// here: it replaces the global operator new, so it is a library of its own
// that only benchmark executables link (common/alloc/alloc_counter.h).
//
// The ceiling writes a preallocated file, as journal files are, so that a
// sync of the ceiling and a sync of the journal do the same work; an
// unpreallocated file pays for block allocation and metadata on every sync
// and makes a poor yardstick.

#ifndef BK_COMMON_MEASURE_H_
#define BK_COMMON_MEASURE_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bk::measure {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Ceiling {
  double mb_per_s = 0;
  double groups_per_s = 0;
  double small_sync_ms = 0;  // median fdatasync after a 4 KiB write
};

// pwrite + fdatasync of `group_bytes` groups in a preallocated file in `dir`
// for `seconds`, plus the median latency of small syncs. `direct`: the file
// is opened with O_DIRECT and written from an aligned buffer (group_bytes
// rounded up to 4 KiB); all zeros (mb_per_s 0) where O_DIRECT is refused.
// Two patterns:
//  - overwrite (append false): a 256 MiB preallocated span written round
//    and round; after the first lap every write lands on written blocks, so
//    a sync carries no metadata. The device's best case.
//  - append (true): what a journal file does: writes at the end of a fresh
//    file, space reserved 16 MiB ahead with fallocate(KEEP_SIZE). Every
//    sync also persists the file size and the written-extent conversion
//    (on this VM's ext4 about half the overwrite figure).
// An I/O error is returned (from errno, naming the call and the file); the
// file is removed either way.
absl::StatusOr<Ceiling> MeasureCeiling(const std::string& dir,
                                       size_t group_bytes, double seconds,
                                       bool direct = false,
                                       bool append = false);

// "fast (~0.3 ms fdatasync)" or "slow (~4 ms fdatasync)".
const char* Regime(double small_sync_ms);

// p in [0, 1]; sorts `v`. 0 for an empty vector.
double Percentile(std::vector<double>* v, double p);

// CPU seconds (user + system) used by this process so far.
double CpuSeconds();

}  // namespace bk::measure

#endif  // BK_COMMON_MEASURE_H_
