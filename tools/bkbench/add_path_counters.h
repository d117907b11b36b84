// AddPathCounters: how adds arrived at a set of bookies and were journaled,
// from their /metrics, for bkbench repair: read before and after the copy,
// the difference says whether recovery adds came in batched AddEntries
// messages and how many journal records shared each fdatasync.

#ifndef BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_
#define BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_

#include <string>
#include <vector>

namespace bk::bkbench {

struct AddPathCounters {
  double add_messages = 0;     // bookie_add_batch_entries_count
  double add_entries = 0;      // bookie_add_batch_entries_sum
  double journal_records = 0;  // bookie_journal_records_total
  double journal_groups = 0;   // bookie_journal_groups_total
  double journal_syncs = 0;    // bookie_journal_syncs_total
  int bookies = 0;             // whose /metrics answered

  // "12800 entries in 240 add messages (53 each), 310 journal syncs (41
  // records each)"
  std::string ToString() const;
};

// Sums the counters of the bookies whose HTTP endpoints ("host:port") are
// given; one that does not answer is left out (and not counted in
// `bookies`).
AddPathCounters ScrapeAddPath(const std::vector<std::string>& http);

// b - a, counter by counter.
AddPathCounters Difference(const AddPathCounters& a, const AddPathCounters& b);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_
