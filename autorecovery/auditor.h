// Auditor: finds the ledgers that lost a replica and marks them
// under-replicated (UnderreplicationManager), as BookKeeper's Auditor does.
// One runs per cluster (AuditorElection); the service (autorecovery.h)
// calls Audit when the bookie registrations change, when a missing bookie's
// delay ends, periodically (auditorPeriodicBookieCheckInterval) and when
// an operator triggers it.
//
// A bookie is lost when some ledger's metadata names it and it is
// registered neither writable nor read-only. The first audit that sees it
// missing starts its clock; once it has been missing for
// lostBookieRecoveryDelay, every ledger with a fragment on it is marked,
// with the bookie recorded as the missing replica. A bookie that comes back
// before then is forgotten. The delay is the one set cluster-wide
// (recovery_delay.h) when there is one, read at every audit, else the
// configured one. (A bookie the auditor never saw registered is
// treated alike: a ledger naming an absent bookie is under-replicated
// whatever the reason.)
//
// Not thread-safe: one caller (the auditor's thread). Blocking.

#ifndef BK_AUTORECOVERY_AUDITOR_H_
#define BK_AUTORECOVERY_AUDITOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autorecovery/underreplication.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

struct AuditReport {
  std::vector<std::string> lost;     // missing past the delay: marked
  std::vector<std::string> waiting;  // missing, still within the delay
  int64_t ledgers_checked = 0;
  int64_t ledgers_marked = 0;  // marks written or confirmed by this audit
  // Lost bookies no ledger names any more, with the time from when the
  // auditor first saw them missing to this audit: loss to full replication.
  std::vector<std::pair<std::string, absl::Duration>> healed;
  // Replication was paused by an operator: nothing was looked at or
  // marked, and no missing bookie's clock moved.
  bool replication_disabled = false;
  // The lostBookieRecoveryDelay this audit applied.
  absl::Duration delay;
};

class Auditor {
 public:
  // REQUIRES: store and marks outlive the auditor.
  Auditor(metadata::MetadataStore* store, UnderreplicationManager* marks,
          absl::Duration lost_bookie_recovery_delay)
      : store_(store),
        marks_(marks),
        configured_delay_(lost_bookie_recovery_delay),
        delay_(lost_bookie_recovery_delay) {}

  absl::StatusOr<AuditReport> Audit(absl::Time now);

  // When a bookie waiting now reaches its delay (InfiniteFuture if none),
  // by the delay the last audit applied.
  absl::Time NextDeadline() const;

 private:
  metadata::MetadataStore* const store_;
  UnderreplicationManager* const marks_;
  const absl::Duration configured_delay_;
  absl::Duration delay_;  // the last audit's: set cluster-wide or configured
  struct Missing {
    absl::Time since;
    bool marked = false;  // its ledgers were marked
  };
  // Bookies seen missing.
  std::map<std::string, Missing> missing_;
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUDITOR_H_
