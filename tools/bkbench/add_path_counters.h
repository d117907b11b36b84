// AddPathCounters: how adds arrived at a set of bookies, were journaled and
// where their time went there, from the bookies' /metrics. Read before and
// after a run, the difference says
//  - for bkbench repair, whether recovery adds came in batched AddEntries
//    messages and how many journal records shared each fdatasync;
//  - for bkbench write, the same, and an add's mean time in the bookie and
//    a journal group's mean time in each stage (journal_stats.h: queued,
//    writing, waiting for its sync, syncing, waiting for its callbacks),
//    from the histograms' sums and counts. Means over the run: the
//    dashboard reads the same histograms' quantiles.

#ifndef BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_
#define BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bk::bkbench {

// A histogram's _sum (seconds) and _count, summed over bookies.
struct HistogramTotal {
  double sum_s = 0;
  double count = 0;
  // Milliseconds per observation; -1 with none.
  double MeanMs() const;
};

struct AddPathCounters {
  double add_messages = 0;     // bookie_add_batch_entries_count
  double add_entries = 0;      // bookie_add_batch_entries_sum
  double journal_records = 0;  // bookie_journal_records_total
  double journal_groups = 0;   // bookie_journal_groups_total
  double journal_syncs = 0;    // bookie_journal_syncs_total
  HistogramTotal add_latency;  // bookie_add_latency_seconds, per add
  // Per journal group: bookie_journal_{queue,write,sync_queue,sync,
  // callback_queue}_seconds (sync: per sync).
  HistogramTotal journal_queue, journal_write, journal_sync_queue, journal_sync,
      journal_callback_queue;
  int bookies = 0;  // whose /metrics answered

  // 0 when there was nothing to divide by.
  double EntriesPerMessage() const;
  double RecordsPerSync() const;

  // "12800 entries in 240 add messages (53 each), 310 journal syncs (41
  // records each)"
  std::string ToString() const;
  // "an add 9.64 ms in the bookie (mean); a journal group 1.80 ms queued,
  // 0.12 writing, 1.68 waiting for its sync, 2.92 syncing, 0.59 waiting for
  // its callbacks"; "unknown" parts where a histogram saw nothing.
  std::string StagesToString() const;
  nlohmann::json ToJson() const;
};

// Adds one bookie's /metrics text to `c` (and counts the bookie).
void AddMetricsText(const std::string& text, AddPathCounters* c);

// Sums the counters of the bookies whose HTTP endpoints ("host:port") are
// given; one that does not answer is left out (and not counted in
// `bookies`).
AddPathCounters ScrapeAddPath(const std::vector<std::string>& http);

// b - a, counter by counter.
AddPathCounters Difference(const AddPathCounters& a, const AddPathCounters& b);

}  // namespace bk::bkbench

#endif  // BK_TOOLS_BKBENCH_ADD_PATH_COUNTERS_H_
