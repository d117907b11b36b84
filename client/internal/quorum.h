// Striping arithmetic shared by writers, readers and recovery.
//
// An ensemble of E bookies (slots 0..E-1) with write quorum WQ: entry e
// goes to slots (e + i) mod E, i < WQ (its write set). Write quorum q is the
// slots q .. q + WQ - 1 (mod E), the write set of every entry e = q mod E.

#ifndef BK_CLIENT_INTERNAL_QUORUM_H_
#define BK_CLIENT_INTERNAL_QUORUM_H_

#include <cstdint>
#include <vector>

#include "proto/metadata.pb.h"

namespace bk::client::internal {

// The i-th slot (i < WQ) of entry `entry_id`'s write set, without building
// the set (the add path asks per entry).
inline int WriteSetSlot(int64_t entry_id, int i, int ensemble_size) {
  return static_cast<int>((entry_id + i) % ensemble_size);
}

inline std::vector<int> WriteSet(int64_t entry_id, int ensemble_size,
                                 int write_quorum) {
  std::vector<int> slots(write_quorum);
  for (int i = 0; i < write_quorum; ++i) {
    slots[i] = WriteSetSlot(entry_id, i, ensemble_size);
  }
  return slots;
}

// True when every write quorum has fewer than `ack_quorum` slots that are
// not `known`: then no entry can have been acknowledged by AQ bookies
// without one of the known ones holding it (BookKeeper's quorum coverage,
// the rule for fencing and for reading the LAC).
inline bool CoversEveryWriteQuorum(const std::vector<bool>& known,
                                   int write_quorum, int ack_quorum) {
  const int e = static_cast<int>(known.size());
  for (int q = 0; q < e; ++q) {
    int unknown = 0;
    for (int i = 0; i < write_quorum; ++i) {
      if (!known[(q + i) % e]) ++unknown;
    }
    if (unknown >= ack_quorum) return false;
  }
  return true;
}

// True when every write quorum still has at least `ack_quorum` live slots.
inline bool AckQuorumReachable(const std::vector<bool>& live, int write_quorum,
                               int ack_quorum) {
  const int e = static_cast<int>(live.size());
  for (int q = 0; q < e; ++q) {
    int alive = 0;
    for (int i = 0; i < write_quorum; ++i) {
      if (live[(q + i) % e]) ++alive;
    }
    if (alive < ack_quorum) return false;
  }
  return true;
}

// The segment holding `entry_id`. REQUIRES: metadata has segments.
inline const proto::Segment& SegmentFor(const proto::LedgerMetadata& md,
                                        int64_t entry_id) {
  int i = md.segments_size() - 1;
  while (i > 0 && md.segments(i).first_entry_id() > entry_id) --i;
  return md.segments(i);
}

// The last entry segment `i` can hold: the next segment's start - 1, or the
// ledger's last entry for the last segment of a closed ledger (-1 while
// open). Never beyond a closed ledger's last entry.
inline int64_t SegmentLastEntry(const proto::LedgerMetadata& md, int i) {
  if (i + 1 < md.segments_size()) {
    int64_t end = md.segments(i + 1).first_entry_id() - 1;
    if (md.state() == proto::CLOSED && md.last_entry_id() < end) {
      end = md.last_entry_id();
    }
    return end;
  }
  return md.last_entry_id();
}

// "OPEN", "IN_RECOVERY", "CLOSED", for errors and logs.
inline const char* LedgerStateName(proto::LedgerState s) {
  switch (s) {
    case proto::OPEN:
      return "OPEN";
    case proto::IN_RECOVERY:
      return "IN_RECOVERY";
    case proto::CLOSED:
      return "CLOSED";
    default:
      return "UNKNOWN";
  }
}

inline std::vector<std::string> Bookies(const proto::Segment& segment) {
  return {segment.bookies().begin(), segment.bookies().end()};
}

}  // namespace bk::client::internal

#endif  // BK_CLIENT_INTERNAL_QUORUM_H_
