// The journal's counters as the bookie exports them (bookie_metrics.h):
// the file lifecycle an operator checks journalReuseFiles by.

#include <catch2/catch.hpp>
#include <string>

#include "bookie/daemon/bookie_metrics.h"

namespace bk::bookie {
namespace {

double CounterValue(const std::vector<prometheus::MetricFamily>& families,
                    const std::string& name) {
  for (const auto& f : families) {
    if (f.name == name && !f.metric.empty()) return f.metric[0].counter.value;
  }
  FAIL("no metric " << name);
  return -1;
}

TEST_CASE("the journal's file and padding counters are exported", "[bookie]") {
  JournalStats j;
  j.files_created = 3;
  j.files_reused = 7;
  j.files_removed = 2;
  j.padding_bytes = 4096;
  StatsSources sources{
      [j] { return j; },
      [] { return StorageStats{}; },
      [] { return StoreStats{}; },
      [] { return monitor::LoadReport{}; },
      [] { return DiskCheckResult{}; },
      [] { return true; },
      [] { return MetadataLedgerFilter::Stats{}; },
  };
  StatsCollector collector("bookie-1", std::move(sources));
  const auto families = collector.Collect();
  CHECK(CounterValue(families, "bookie_journal_files_created_total") == 3);
  CHECK(CounterValue(families, "bookie_journal_files_reused_total") == 7);
  CHECK(CounterValue(families, "bookie_journal_files_removed_total") == 2);
  CHECK(CounterValue(families, "bookie_journal_padding_bytes_total") == 4096);
}

}  // namespace
}  // namespace bk::bookie
