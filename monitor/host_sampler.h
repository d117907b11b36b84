// HostSampler: takes one Reading of the host and of the bookie's counters.

#ifndef BK_MONITOR_HOST_SAMPLER_H_
#define BK_MONITOR_HOST_SAMPLER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "monitor/disk_space.h"
#include "monitor/own_counters.h"
#include "monitor/reading.h"

namespace bk::monitor {

// Immutable after construction; Take() may be called from any thread, but
// the monitor calls it from one thread at a time.
class HostSampler {
 public:
  // `counters` may be null and must otherwise outlive the sampler.
  // `watched_disks`: the only devices whose io_ticks a Reading keeps.
  HostSampler(std::string proc_root, std::vector<std::string> watched_disks,
              std::vector<std::string> ledger_dirs, OwnCounters* counters,
              FsProbe fs_probe);

  // Reads everything once. A source that fails is left empty in the Reading
  // (its figures become -1) and the first such error is returned in
  // *first_error; the other sources are still read.
  Reading Take(int64_t now_nanos, absl::Status* first_error) const;

 private:
  const std::string proc_root_;
  const std::vector<std::string> watched_disks_;
  const std::vector<std::string> ledger_dirs_;
  OwnCounters* const counters_;
  const FsProbe fs_probe_;
};

}  // namespace bk::monitor

#endif  // BK_MONITOR_HOST_SAMPLER_H_
