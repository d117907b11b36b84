// ReplicaCheck: the auditor's periodic check of what the bookies really
// hold (auditorPeriodicCheckInterval; BookKeeper's checkAllLedgers). The
// bookie check (auditor.h) only sees bookies that are gone from the
// registrations; this one finds a live bookie that lacks entries it should
// hold: wiped and re-formatted, a lost ledger directory, an add that never
// reached it.
//
// Every ledger's immutable fragments are checked entry id by entry id on
// each bookie of the fragment (client::LedgerChecker), and a ledger whose
// fragment lacks entries on a bookie is marked under-replicated with that
// bookie recorded as missing. The replication worker then treats it as any
// lost bookie: it moves the ledger's fragments off that bookie to a
// replacement the placement policy chooses (excluding the segment's
// bookies), copying from the surviving replicas. That is what BookKeeper's
// ReplicationWorker does with the fragments its checker reports (it asks
// the placement policy for replacements of the failed indexes rather than
// refilling the same bookie), and it keeps one rule for every repair: the
// metadata only ever names bookies that were proven to hold the entries.
//
// Left alone: bookies that do not answer (the bookie check's business: a
// slow bookie is not an empty one), and a gap on a bookie that is also in
// the last segment of a ledger still open: marking it would make the
// worker fence the ledger after the grace period, under a live writer; it
// is found again once the ledger is closed.
//
// Not thread-safe: one caller (the auditor's thread). Blocking.

#ifndef BK_AUTORECOVERY_REPLICA_CHECK_H_
#define BK_AUTORECOVERY_REPLICA_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autorecovery/underreplication.h"
#include "client/client.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

struct ReplicaCheckReport {
  int64_t ledgers_checked = 0;
  int64_t fragments_checked = 0;  // (segment, bookie) pairs answered
  int64_t ledgers_marked = 0;
  int64_t entries_missing = 0;  // over every gap found
  // "ledger <id> bookie <b>" of each gap left unmarked (open ledgers).
  std::vector<std::string> deferred;
  std::vector<std::string> unreachable;  // bookies that did not answer
  // Replication was paused by an operator: no ledger was checked.
  bool replication_disabled = false;
};

class ReplicaCheck {
 public:
  // REQUIRES: store, marks and client outlive the check. `timeout` bounds
  // each bookie's answer.
  ReplicaCheck(metadata::MetadataStore* store, UnderreplicationManager* marks,
               client::Client* client, absl::Duration timeout)
      : store_(store), marks_(marks), client_(client), timeout_(timeout) {}

  // Checks every ledger once; errors only for the metadata store.
  absl::StatusOr<ReplicaCheckReport> Run(absl::Time now);

 private:
  metadata::MetadataStore* const store_;
  UnderreplicationManager* const marks_;
  client::Client* const client_;
  const absl::Duration timeout_;
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_REPLICA_CHECK_H_
