// The disk checker of a running bookie (daemon_wiring.h).

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bookie/daemon/daemon_wiring.h"

namespace bk::bookie {
namespace {

// Read-only above the threshold (or when forced), writable again below the
// low-water mark; the store says why in /ready. With readOnlyModeEnabled
// false a full disk is an error instead: the bookie stops.
absl::Status ApplyDiskState(const DaemonOptions& options, DaemonParts& p) {
  const DiskCheckResult r = p.LastDisk();
  if (options.force_read_only) {
    p.store->SetReadOnly(true, "forceReadOnlyBookie is set");
    return absl::OkStatus();
  }
  if (p.admin_read_only) {
    p.store->SetReadOnly(
        true,
        "set read-only through the admin API (PUT "
        "/api/v1/bookie/state/readonly {\"readOnly\":false} undoes it)");
    return absl::OkStatus();
  }
  if (r.state == DiskState::kReadOnly && !options.read_only_mode_enabled) {
    p.store->SetReadOnly(true, "disk full; stopping");
    return absl::ResourceExhaustedError(absl::StrCat(
        "disk usage ", r.max_usage, " is above diskUsageThreshold ",
        options.disk.usage_threshold,
        " and readOnlyModeEnabled=false: the bookie stops instead of "
        "turning read-only (free disk space, or set "
        "readOnlyModeEnabled=true)"));
  }
  // A full ledger directory is skipped for new ledgers; the bookie turns
  // read-only only when every one is full (or a journal directory is).
  size_t ledger_dir = 0;
  for (const DirUsage& u : r.dirs) {
    if (u.journal) continue;
    p.store->storage()->SetDirFull(ledger_dir++, u.full);
  }
  if (r.state == DiskState::kReadOnly) {
    // In the key's names, so that an operator (and bkbench, which shows
    // this reason) can tell what to change.
    p.store->SetReadOnly(
        true,
        absl::StrFormat("disk usage %.1f%% > diskUsageThreshold %.1f%% "
                        "(writable again below diskUsageLwmThreshold "
                        "%.1f%%)",
                        100 * r.max_usage, 100 * options.disk.usage_threshold,
                        100 * options.disk.lwm_threshold));
  } else {
    p.store->SetReadOnly(false, "");
  }
  if (r.changed()) {
    p.log->warn("disk state {} -> {} (max usage {:.3f})",
                DiskStateName(r.previous), DiskStateName(r.state), r.max_usage);
  }
  for (const DirUsage& u : r.dirs) {
    if (!u.journal && u.full && r.state != DiskState::kReadOnly) {
      p.log->warn(
          "ledger directory {} is full ({:.3f}): new ledgers go to "
          "the others",
          u.dir, u.usage);
    }
  }
  return absl::OkStatus();
}

void RecordCheck(DaemonParts& p) {
  DiskCheckResult r = p.disk->Check();
  absl::MutexLock l(&p.mu);
  p.last_disk = r;
}

}  // namespace

absl::Status StartDiskChecker(const DaemonOptions& options, DaemonParts& p) {
  p.disk =
      std::make_unique<DiskChecker>(p.env, options.store.storage.ledger_dirs,
                                    options.store.journal.dirs, options.disk);
  RecordCheck(p);
  return ApplyDiskState(options, p);
}

absl::Status CheckDisks(const DaemonOptions& options, DaemonParts& p) {
  RecordCheck(p);
  return UpdateWritableState(options, p);
}

absl::Status UpdateWritableState(const DaemonOptions& options, DaemonParts& p) {
  absl::MutexLock state(&p.state_mu);
  if (absl::Status s = ApplyDiskState(options, p); !s.ok()) return s;
  // Keep the registration's read-only flag current (journal failures
  // included: an unwritable bookie must not be chosen for new ledgers).
  const bool read_only = !p.store->Stats().writable;
  bool changed;
  {
    absl::MutexLock l(&p.mu);
    changed = read_only != p.registered_read_only;
  }
  if (changed && p.registered) {
    absl::Status s = Register(options, p);
    if (!s.ok()) {
      p.log->error("re-registration failed: {}", s.ToString());
    } else {
      p.log->info("registered as {}", read_only ? "read-only" : "writable");
    }
  }
  return absl::OkStatus();
}

}  // namespace bk::bookie
