// ReplicationWorker: repairs under-replicated ledgers, one at a time, as
// BookKeeper's ReplicationWorker does.
//
// RunOnce takes the first marked ledger that no other worker has locked
// (UnderreplicationManager::TryLock, an ephemeral node) and is not backing
// off, and for each missing bookie of its mark moves the ledger's fragments
// off it (client::LedgerRepair: a replacement from the client's placement
// policy, excluding the segment's bookies; the entries copied from surviving
// replicas, digests verified, with recovery adds; the bookie swapped in the
// metadata by compare-and-set). Then it removes the bookies no segment
// names any more from the mark (the whole mark once none is left) and
// releases the lock.
//
// Open ledgers: the non-last segments are immutable and moved at once. The
// last segment of a ledger that is not CLOSED may still grow; it is left
// for openLedgerRereplicationGracePeriod after the ledger was marked (its
// writer, if alive, replaces a dead bookie itself), then the ledger is
// recovered (fenced, closed; client::Client::OpenLedger with recover) and
// moved like a closed one.
//
// A worker that dies mid-copy leaves the mark (removed only after the
// swap) and its lock goes with its session: another worker repeats the
// copy; the swap is a compare-and-set, so nothing is lost or doubled in the
// metadata. A ledger that fails (no replacement, no readable replica, no
// configured password) is retried after rwRereplicateBackoffMs.
//
// Passwords: adds need the ledger's master key and the metadata holds only
// a hash, so the worker is given the cluster's ledger passwords and uses
// the one whose hash the ledger records; a ledger whose password it lacks
// stays marked (and is logged).
//
// Not thread-safe: one thread per worker. Blocking. REQUIRES: client,
// store and marks outlive the worker.

#ifndef BK_AUTORECOVERY_REPLICATION_WORKER_H_
#define BK_AUTORECOVERY_REPLICATION_WORKER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autorecovery/underreplication.h"
#include "client/client.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

struct WorkerOptions {
  std::string owner;  // written into the locks it takes (for operators)
  absl::Duration open_ledger_grace_period = absl::Seconds(30);
  absl::Duration backoff = absl::Seconds(5);  // rwRereplicateBackoffMs
  int batch_size = 10;                        // rereplicationEntryBatchSize
  // Called with the bytes of each chunk before it is copied; may block (the
  // service's byte-rate throttle). Null: unthrottled.
  std::function<void(int64_t)> throttle;
  // Candidate passwords of the cluster's ledgers ("" is always tried).
  std::vector<std::string> passwords;
  // When not empty, the only ledgers this worker takes; other marks are left
  // to other workers (bkctl recover repairs the ledgers it marked, not the
  // whole cluster's).
  std::set<LedgerId> only;
  // Take nothing while an operator has paused replication
  // (UnderreplicationManager::SetReplicationEnabled). bkctl recover, the
  // operator's explicit repair, does not wait for it.
  bool honour_disable = true;
};

struct WorkResult {
  enum Outcome {
    kIdle,      // nothing to do now
    kRepaired,  // the ledger is fully replicated, its mark removed
    kDeferred,  // partly done: an open ledger's last segment waits
    kFailed,    // see error; retried after the backoff
  };
  Outcome outcome = kIdle;
  bool paused = false;  // kIdle because re-replication is paused
  LedgerId ledger = -1;
  int64_t fragments = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
  absl::Status error;
};

// The password among `passwords` (and "") whose hash `md` records;
// kFailedPrecondition when none does.
absl::StatusOr<std::string> PasswordFor(
    const proto::LedgerMetadata& md, const std::vector<std::string>& passwords);

class ReplicationWorker {
 public:
  ReplicationWorker(client::Client* client, metadata::MetadataStore* store,
                    UnderreplicationManager* marks, WorkerOptions options);

  // Repairs one ledger, or returns kIdle. An error only for the store.
  absl::StatusOr<WorkResult> RunOnce(absl::Time now);

 private:
  // REQUIRES: the ledger's lock held.
  WorkResult Repair(LedgerId ledger, absl::Time now);

  client::Client* const client_;
  metadata::MetadataStore* const store_;
  UnderreplicationManager* const marks_;
  const WorkerOptions options_;
  std::map<LedgerId, absl::Time> not_before_;  // backing off until
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_REPLICATION_WORKER_H_
