// UnderreplicationManager: the under-replicated ledgers of a cluster, kept
// in the metadata store's coordination nodes in BookKeeper's layout
// (its LedgerUnderreplicationManager):
//
//   <root>/underreplication/ledgers/HHHH/HHHH/HHHH/HHHH/urL<id, 10+ digits>
//        one persistent node per under-replicated ledger, the ledger id's
//        64 bits as four groups of 4 hex digits; data: one
//        "replica: <bookie id>" line per missing bookie, then
//        "ctime: <ms since the epoch>" (when it was first marked)
//   <root>/underreplication/locks/urL<id>
//        ephemeral: held by the worker repairing the ledger; gone with its
//        session, so a worker that dies leaves the mark for another
//   <root>/underreplication/disable
//        present while an operator has paused replication cluster-wide
//        (BookKeeper's `autorecovery -disable`, for a maintenance window);
//        data: "ctime: <ms since the epoch>". Workers then take no ledger
//        and the auditor and the replica check mark none; marks already
//        made stay, and are repaired once it is gone.
//
// Marks are merged (a second lost bookie is added to the first mark) by
// compare-and-set, so concurrent markers lose nothing. A mark is removed
// only at the version the remover read: a bookie added meanwhile keeps it.
//
// Thread-safe as far as the store is (it holds no state of its own).
// Blocking. REQUIRES: the store outlives the manager.

#ifndef BK_AUTORECOVERY_UNDERREPLICATION_H_
#define BK_AUTORECOVERY_UNDERREPLICATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

using metadata::LedgerId;
using metadata::Version;

struct UnderreplicatedLedger {
  LedgerId ledger = -1;
  std::vector<std::string> missing;  // sorted, unique
  absl::Time marked_at = absl::InfinitePast();
  Version version = metadata::kNotExists;
};

// The record's text form and back (kDataLoss for a malformed one).
std::string EncodeMark(const UnderreplicatedLedger& mark);
absl::StatusOr<UnderreplicatedLedger> DecodeMark(LedgerId ledger,
                                                 const std::string& data);

class UnderreplicationManager {
 public:
  static constexpr char kLedgersDir[] = "underreplication/ledgers";
  static constexpr char kLocksDir[] = "underreplication/locks";
  static constexpr char kDisableNode[] = "underreplication/disable";

  explicit UnderreplicationManager(metadata::MetadataStore* store)
      : store_(store) {}

  static std::string MarkPath(LedgerId ledger);
  static std::string LockPath(LedgerId ledger);

  // Adds `missing` to the ledger's mark (creating it, at `now`).
  absl::Status Mark(LedgerId ledger, const std::vector<std::string>& missing,
                    absl::Time now);
  // kNotFound when the ledger is not marked.
  absl::StatusOr<UnderreplicatedLedger> Get(LedgerId ledger);
  // Every marked ledger, ascending.
  absl::StatusOr<std::vector<LedgerId>> List();

  // Removes `repaired` from the mark read at `mark.version`; removes the
  // mark once nothing is missing. kAborted when it changed meanwhile (then
  // nothing is removed: the caller looks again).
  absl::Status Unmark(const UnderreplicatedLedger& mark,
                      const std::vector<std::string>& repaired);

  // The worker's lock on a ledger: true when taken, false when another
  // session holds it.
  absl::StatusOr<bool> TryLock(LedgerId ledger, const std::string& owner);
  absl::Status Unlock(LedgerId ledger);

  // Pauses (false) or resumes (true) replication cluster-wide; doing what
  // is already done is OK.
  absl::Status SetReplicationEnabled(bool enabled, absl::Time now);
  // Since when replication is paused; nullopt while it is enabled.
  absl::StatusOr<std::optional<absl::Time>> ReplicationDisabledSince();
  absl::StatusOr<bool> ReplicationEnabled();

 private:
  metadata::MetadataStore* const store_;
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_UNDERREPLICATION_H_
