// The bookies' add path as bkbench reads it from /metrics
// (tools/bkbench/add_path_counters.h): counters and histogram sums summed
// over bookies, differenced over a run, turned into means per stage.

#include "tools/bkbench/add_path_counters.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"

namespace bk::bkbench {
namespace {

// One bookie's /metrics text as prometheus-cpp writes it, with `groups`
// journal groups that spent `queue_s` queued and `sync_queue_s` waiting
// for their syncs in all.
std::string Metrics(const std::string& bookie, double groups, double queue_s,
                    double sync_queue_s, double adds, double add_s) {
  const std::string l = absl::StrFormat("{bookie=\"%s\"}", bookie);
  return absl::StrFormat(
      "# HELP bookie_journal_queue_seconds Time ...\n"
      "# TYPE bookie_journal_queue_seconds histogram\n"
      "bookie_journal_queue_seconds_count%s %g\n"
      "bookie_journal_queue_seconds_sum%s %g\n"
      "bookie_journal_queue_seconds_bucket{bookie=\"%s\",le=\"1e-05\"} 0\n"
      "bookie_journal_sync_queue_seconds_count%s %g\n"
      "bookie_journal_sync_queue_seconds_sum%s %g\n"
      "bookie_add_latency_seconds_count%s %g\n"
      "bookie_add_latency_seconds_sum%s %g\n"
      "bookie_journal_groups_total%s %g\n"
      "bookie_journal_syncs_total%s %g\n"
      "bookie_journal_records_total%s %g\n",
      l, groups, l, queue_s, bookie, l, groups, l, sync_queue_s, l, adds, l,
      add_s, l, groups, l, groups / 2, l, adds);
}

TEST_CASE("a run's add path is the difference of the bookies' metrics",
          "[bkbench]") {
  AddPathCounters before, after;
  AddMetricsText(Metrics("b0", 100, 0.1, 0.2, 1000, 5.0), &before);
  AddMetricsText(Metrics("b1", 100, 0.1, 0.2, 1000, 5.0), &before);
  // Over the run each bookie wrote 200 groups more, queued 0.4 s and
  // waiting 0.6 s for syncs in all; 10,000 adds took 80 s.
  AddMetricsText(Metrics("b0", 300, 0.5, 0.8, 11000, 85.0), &after);
  AddMetricsText(Metrics("b1", 300, 0.5, 0.8, 11000, 85.0), &after);
  const AddPathCounters run = Difference(before, after);
  CHECK(run.bookies == 2);
  CHECK(run.journal_groups == Approx(400));
  CHECK(run.journal_syncs == Approx(200));
  CHECK(run.journal_records == Approx(20000));
  CHECK(run.journal_queue.count == Approx(400));
  CHECK(run.journal_queue.MeanMs() == Approx(2.0));       // 0.8 s / 400
  CHECK(run.journal_sync_queue.MeanMs() == Approx(3.0));  // 1.2 s / 400
  CHECK(run.add_latency.MeanMs() == Approx(8.0));         // 160 s / 20,000
  const std::string line = run.StagesToString();
  INFO(line);
  CHECK(absl::StrContains(line, "an add 8.00 ms in the bookie"));
  CHECK(absl::StrContains(line, "2.00 ms queued"));
  CHECK(absl::StrContains(line, "3.00 waiting for its sync"));
  // Histograms that saw nothing (here write, sync, callbacks) say so.
  CHECK(absl::StrContains(line, "unknown writing"));
  const nlohmann::json j = run.ToJson();
  CHECK(j["journal_group"]["queue"]["mean_ms"].get<double>() == Approx(2.0));
  CHECK(j["journal_group"]["write"]["mean_ms"].get<double>() == -1);
}

TEST_CASE("a metric whose name only starts another's is not counted",
          "[bkbench]") {
  AddPathCounters c;
  // _sum of a longer name, and a series of another histogram: neither is
  // bookie_journal_sync_seconds.
  AddMetricsText(
      "bookie_journal_sync_seconds_sum{bookie=\"b\"} 2\n"
      "bookie_journal_sync_seconds_count{bookie=\"b\"} 4\n"
      "bookie_journal_sync_seconds_total_sum{bookie=\"b\"} 100\n"
      "bookie_journal_sync_queue_seconds_sum{bookie=\"b\"} 7\n",
      &c);
  CHECK(c.journal_sync.sum_s == Approx(2));
  CHECK(c.journal_sync.count == Approx(4));
  CHECK(c.journal_sync.MeanMs() == Approx(500));
  CHECK(c.journal_sync_queue.sum_s == Approx(7));
  CHECK(c.bookies == 1);
}

TEST_CASE("a bookie that does not answer the scrape is left out", "[bkbench]") {
  // Port 1 on loopback: nothing listens there.
  const AddPathCounters c = ScrapeAddPath({"127.0.0.1:1"});
  CHECK(c.bookies == 0);
  CHECK(c.journal_queue.MeanMs() == -1);
}

}  // namespace
}  // namespace bk::bkbench
