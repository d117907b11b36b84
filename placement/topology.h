// Topology: the cluster as the policy knows it -- which bookies are writable
// or read-only, the rack each sits in, and each one's latest load report.
//
// Network locations follow BookKeeper: "/region/rack". A bookie whose
// location is empty or malformed sits in the default rack, kDefaultRack.
//
// Not thread-safe; owned by one policy.

#ifndef BK_PLACEMENT_TOPOLOGY_H_
#define BK_PLACEMENT_TOPOLOGY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "placement/types.h"

namespace bk::placement {

inline constexpr absl::string_view kDefaultRack =
    "/default-region/default-rack";
inline constexpr absl::string_view kDefaultRegion = "default-region";

// Checks a network location: one or more "/name" parts, names non-empty and
// free of whitespace ("/region/rack", "/rack"). kInvalidArgument otherwise.
absl::StatusOr<std::string> ParseNetworkLocation(absl::string_view location);

// The location if it parses, else kDefaultRack (BookKeeper's resolver
// behaviour for a bookie it cannot place).
std::string NetworkLocationOrDefault(absl::string_view location);

// The region of a location: its first part when it has two or more
// ("/east/r1" -> "east"); kDefaultRegion for a one-part location ("/r1").
// REQUIRES: `location` parses (ParseNetworkLocation).
std::string RegionOf(absl::string_view location);

enum class BookieState { kWritable, kReadOnly, kUnknown };

// A load report and when the client received it.
struct BookieReport {
  BookieInfo info;
  absl::Time received_at;
};

class Topology {
 public:
  // Replaces the membership. A bookie listed in both is read-only. Reports of
  // bookies no longer present are dropped.
  void SetMembers(const std::vector<BookieNode>& writable,
                  const std::vector<BookieNode>& readonly);

  // Records `id`'s latest report; an older report than the one held is
  // ignored (reports may arrive out of order).
  void SetReport(const BookieId& id, const BookieInfo& info,
                 absl::Time received_at);

  BookieState State(const BookieId& id) const;
  // The bookie's rack; kDefaultRack for a bookie not in the cluster. Valid
  // until the next SetMembers.
  const std::string& Rack(const BookieId& id) const;
  // The region of Rack(id) (RegionOf). Valid until the next SetMembers.
  const std::string& Region(const BookieId& id) const;
  // The bookie's isolation groups, sorted; empty for a bookie not in the
  // cluster. Valid until the next SetMembers.
  const std::vector<std::string>& Groups(const BookieId& id) const;
  // nullptr when no report is held. Valid until the next non-const call.
  const BookieReport* Report(const BookieId& id) const;

  // Writable bookies, sorted by id so that a seed gives the same draws
  // whatever order the membership arrived in.
  const std::vector<BookieId>& writable() const { return writable_; }

 private:
  struct Member {
    std::string rack;
    bool readonly = false;
    std::string region;
    std::vector<std::string> groups;  // sorted, distinct
  };
  static Member MemberOf(const BookieNode& node, bool readonly);
  // Not thread-safe: touched only by the owner's (serialised) calls.
  absl::flat_hash_map<BookieId, Member> members_;
  absl::flat_hash_map<BookieId, BookieReport> reports_;
  std::vector<BookieId> writable_;  // the writable keys of members_, sorted
};

}  // namespace bk::placement

#endif  // BK_PLACEMENT_TOPOLOGY_H_
