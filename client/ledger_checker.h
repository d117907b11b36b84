// LedgerChecker: finds the fragments of a ledger whose entries are not all
// on the bookies that should hold them (BookKeeper's LedgerChecker), for
// the auditor's periodic check (auditorPeriodicCheckInterval): a bookie
// wiped and re-formatted, a lost ledger directory, an add that never
// reached one replica.
//
//   bk::client::LedgerChecker checker(client.get());
//   auto r = checker.Check(ledger_id, absl::Seconds(10));
//   for (const auto& gap : r->gaps) ...  // mark gap.bookie's ledger
//
// For each immutable segment (every segment of a CLOSED ledger, the
// non-last segments of an open one: the last may still grow), each bookie
// of the segment is asked which entry ids it holds in the segment's range
// (GetListOfEntriesOfLedger, paged), and that list is compared with the
// entries whose write set holds the bookie's slot. Every id is checked,
// not a sample: the cost is 8 bytes per entry on the wire.
//
// A bookie that does not answer is listed as unreachable, not as a gap:
// whether it is gone is the registrations' business (the auditor's bookie
// check), and a slow bookie must not be mistaken for an empty one.
//
// Threads: any thread but the client's own; blocking. Lifetime: must not
// outlive its Client.

#ifndef BK_CLIENT_LEDGER_CHECKER_H_
#define BK_CLIENT_LEDGER_CHECKER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client.h"

namespace bk::client {

// A bookie that lacks entries of one segment it should hold.
struct FragmentGap {
  int segment = -1;
  int64_t first_entry = -1;  // the segment's range [first, last]
  int64_t last_entry = -1;
  std::string bookie;
  int64_t missing_entries = 0;
  int64_t first_missing = -1;
};

struct LedgerCheck {
  std::vector<FragmentGap> gaps;
  std::vector<std::string> unreachable;  // did not answer; not judged
  int64_t fragments_checked = 0;         // (segment, bookie) pairs
  bool skipped_last_segment = false;     // open ledger: not checked
};

class LedgerChecker {
 public:
  // REQUIRES: client outlives this object.
  explicit LedgerChecker(Client* client) : client_(client) {}

  // Checks ledger `ledger_id` as its metadata stands now. kNotFound when
  // the ledger is gone; other errors only for the metadata store. Each
  // bookie's answer is awaited `timeout` at most.
  absl::StatusOr<LedgerCheck> Check(int64_t ledger_id, absl::Duration timeout);

 private:
  Client* const client_;
};

}  // namespace bk::client

#endif  // BK_CLIENT_LEDGER_CHECKER_H_
