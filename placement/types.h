// Vocabulary of the placement module: bookie identity, location and load as
// the client learns them, and the results a placement policy returns.
//
// These are plain structs. The client converts its wire data (registration,
// GetBookieInfo responses) into them; nothing here knows about the wire.

#ifndef BK_PLACEMENT_TYPES_H_
#define BK_PLACEMENT_TYPES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bk::placement {

// A bookie's id as registered ("host:port" or a configured name).
using BookieId = std::string;
using BookieSet = absl::flat_hash_set<BookieId>;

// A member of the cluster: who it is and where it sits.
struct BookieNode {
  BookieId id;
  // "/region/rack". Empty or malformed means the default rack (see
  // topology.h), as BookKeeper's resolver does.
  std::string network_location;
  // The isolation groups the bookie is tagged with (isolation_groups.h);
  // the client reads them from the metadata store. Empty: no group.
  std::vector<std::string> groups;
};

// One load report of a bookie (the fields of GetBookieInfo). Every figure is
// -1 when unknown (the bookie could not measure it or did not report it),
// never 0.
struct BookieInfo {
  int64_t free_disk_bytes = -1;   // bytes free on the ledger disks
  int64_t total_disk_bytes = -1;  // bytes of ledger disk capacity
  double journal_io_util = -1;    // percent busy of the journal device, 0..100
  double ledger_io_util = -1;     // percent busy of the ledger device, 0..100
  double cpu_used_rate = -1;      // percent of CPU in use, 0..100
  double write_bytes_per_second = -1;  // bytes written per second
  // The bookie's own add latency, 99th percentile over its window (ms).
  double add_latency_p99_ms = -1;
};

// What the client knows of the ledger it asks bookies for. Every field is
// optional; a policy ignores what it has no use for, and without hints every
// policy places exactly as it would with none.
struct LedgerHints {
  // The ledger's custom metadata (BookKeeper's customMetadata, string to
  // bytes), as the client writes it into the ledger's metadata. Region and
  // isolation rules read their inputs from here.
  std::map<std::string, std::string> custom_metadata;
  // The rate the writer expects to add at, in bytes per second before
  // replication: a broker knows its topic's rate when it rolls a ledger. On a
  // replacement, the ledger's measured rate. < 0: unknown.
  double expected_write_bytes_per_second = -1;

  bool has_rate() const { return expected_write_bytes_per_second >= 0; }
};

// How well an ensemble honours the rack rule (see rack_coverage.h).
enum class Adherence {
  kMeetsStrict,  // every write quorum spans the required number of racks
  kMeetsSoft,    // as strict, but a quarantined bookie had to be used
  kFail,         // some write quorum spans fewer racks than required
};

// "MEETS_STRICT", "MEETS_SOFT" or "FAIL", BookKeeper's names.
absl::string_view AdherenceName(Adherence adherence);

struct PlacementResult {
  std::vector<BookieId> ensemble;  // ensemble_size distinct bookies, in order
  Adherence adherence = Adherence::kFail;
};

struct ReplacementResult {
  BookieId bookie;                 // the bookie chosen as replacement
  std::vector<BookieId> ensemble;  // the ensemble with the replacement in place
  Adherence adherence = Adherence::kFail;  // judged on `ensemble`
};

// NotEnoughBookies: the cluster (minus exclusions, read-only bookies and, when
// enforced, default-rack bookies) cannot supply the bookies asked for. The
// code is kUnavailable (retry when bookies join; Abseil's retry guide) and the
// status carries a payload so callers can tell it from other kUnavailable.
absl::Status NotEnoughBookiesError(absl::string_view message);
bool IsNotEnoughBookies(const absl::Status& status);

}  // namespace bk::placement

#endif  // BK_PLACEMENT_TYPES_H_
