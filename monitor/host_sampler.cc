#include "monitor/host_sampler.h"

#include <utility>

namespace bk::monitor {

HostSampler::HostSampler(std::string proc_root,
                         std::vector<std::string> watched_disks,
                         std::vector<std::string> ledger_dirs,
                         OwnCounters* counters, FsProbe fs_probe)
    : proc_root_(std::move(proc_root)),
      watched_disks_(std::move(watched_disks)),
      ledger_dirs_(std::move(ledger_dirs)),
      counters_(counters),
      fs_probe_(std::move(fs_probe)) {}

Reading HostSampler::Take(int64_t now_nanos, absl::Status* first_error) const {
  auto note = [first_error](const absl::Status& s) {
    if (!s.ok() && first_error->ok()) *first_error = s;
  };
  Reading r;
  r.now_nanos = now_nanos;

  if (!watched_disks_.empty()) {
    absl::StatusOr<DiskCounterMap> all = ReadDiskstats(proc_root_);
    note(all.status());
    if (all.ok()) {
      DiskCounterMap watched;
      for (const std::string& disk : watched_disks_) {
        auto it = all->find(disk);
        if (it != all->end()) watched.insert(*it);
      }
      r.disks = std::move(watched);
    }
  }

  absl::StatusOr<CpuTicks> cpu = ReadAllowedCpuTicks(proc_root_);
  note(cpu.status());
  if (cpu.ok()) r.cpu = *std::move(cpu);
  absl::StatusOr<uint64_t> own = ReadProcessTicks(proc_root_);
  note(own.status());
  if (own.ok()) r.process_ticks = *own;

  if (counters_ != nullptr) {
    r.bytes_written = counters_->BytesWritten();
    r.journal_busy_nanos = counters_->JournalBusyNanos();
    r.ledger_busy_nanos = counters_->LedgerBusyNanos();
  }

  if (!ledger_dirs_.empty()) {
    absl::StatusOr<DiskSpace> space = SumDiskSpace(ledger_dirs_, fs_probe_);
    note(space.status());
    if (space.ok()) r.disk_space = *space;
  }
  return r;
}

}  // namespace bk::monitor
