// bkbench scenarios: every committed scenario file validates; a bad one is
// rejected with the key named; the report renders from a result.

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/support/temp_dir.h"
#include "tools/bkbench/bookie_sampler.h"
#include "tools/bkbench/machine_sampler.h"
#include "tools/bkbench/run_report.h"
#include "tools/bkbench/scenario_spec.h"
#include "tools/bkbench/spread.h"
#include "tools/sim/report.h"

namespace bk::bkbench {
namespace {

const char kGood[] = R"(
name: t
kind: workload
duration_s: 10
cluster: {bookies: 3, racks: 3}
ledgers: {count: 2, ensemble: 3, write_quorum: 2, ack_quorum: 2}
writers: {entry_size: 100, rate: 100}
readers:
  - {name: a, ledger: 0, join_s: 0}
  - {name: b, ledger: 1, join_s: 5}
)";

const char kSlow[] = R"(
name: s
kind: slow-bookie
duration_s: 5
warmup_s: 2
cluster: {bookies: 9, racks: 3}
client: {bookie_info_interval_ms: 500}
slow_bookie: {index: 4, sync_delay_ms: 20}
policies: [none, adaptive]
)";

// kGood with `from` replaced by `to`; the replacement must happen.
std::string Edit(const std::string& base, const std::string& from,
                 const std::string& to) {
  REQUIRE(absl::StrContains(base, from));
  std::string s = base;
  s.replace(s.find(from), from.size(), to);
  return s;
}

void ExpectRejected(const std::string& yaml, const std::string& key) {
  auto s = ParseScenarioSpec(yaml);
  INFO(yaml);
  REQUIRE_FALSE(s.ok());
  INFO(s.status().message());
  CHECK(absl::IsInvalidArgument(s.status()));
  CHECK(absl::StartsWith(s.status().message(), key + ":"));
}

}  // namespace

TEST_CASE("every committed bkbench scenario validates", "[bkbench]") {
  for (const char* name : {"tailing", "catch-up", "slow-bookie"}) {
    const std::string path =
        absl::StrCat(BK_SOURCE_DIR, "/bench/scenarios/", name, ".yaml");
    auto s = ReadScenarioSpecFile(path);
    INFO(path << ": " << s.status().message());
    REQUIRE(s.ok());
    CHECK(s->name == name);
  }
  auto slow = ReadScenarioSpecFile(
      absl::StrCat(BK_SOURCE_DIR, "/bench/scenarios/slow-bookie.yaml"));
  REQUIRE(slow.ok());
  CHECK(slow->kind == ScenarioKind::kSlowBookie);
  CHECK(slow->bookies == 9);
  CHECK(slow->racks == 3);
  CHECK(slow->policies.size() == 3);
}

TEST_CASE("a scenario reads every key and keeps defaults for absent ones",
          "[bkbench]") {
  auto s = ParseScenarioSpec(kGood);
  REQUIRE(s.ok());
  CHECK(s->readers.size() == 2);
  CHECK(s->readers[1].join_s == 5);
  CHECK(s->entry_size == 100);
  CHECK(s->weighting == placement::Weighting::kLoad);
  auto slow = ParseScenarioSpec(kSlow);
  INFO(slow.status().message());
  REQUIRE(slow.ok());
  CHECK(slow->slow_bookie == 4);
}

TEST_CASE("an unknown key is rejected with its path", "[bkbench]") {
  ExpectRejected(Edit(kGood, "duration_s: 10", "duration_s: 10\ndurration: 1"),
                 "durration");
  ExpectRejected(Edit(kGood, "rate: 100", "rate: 100, burst: 3"),
                 "writers.burst");
  ExpectRejected(Edit(kGood, "join_s: 5}", "join_s: 5, joins: 1}"),
                 "readers[1].joins");
}

TEST_CASE("impossible timings and values are rejected with the key named",
          "[bkbench]") {
  ExpectRejected(Edit(kGood, "join_s: 5", "join_s: 10"), "readers[1].join_s");
  ExpectRejected(Edit(kGood, "join_s: 5", "join_s: -1"), "readers[1].join_s");
  ExpectRejected(Edit(kGood, "duration_s: 10", "duration_s: 0"), "duration_s");
  ExpectRejected(Edit(kGood, "rate: 100", "rate: -5"), "writers.rate");
  ExpectRejected(Edit(kGood, "ledger: 1,", "ledger: 2,"), "readers[1].ledger");
  ExpectRejected(Edit(kGood, "ensemble: 3", "ensemble: 4"), "ledgers.ensemble");
  ExpectRejected(Edit(kGood, "ack_quorum: 2", "ack_quorum: 3"),
                 "ledgers.ack_quorum");
  ExpectRejected(Edit(kSlow, "index: 4", "index: 9"), "slow_bookie.index");
  ExpectRejected(Edit(kSlow, "index: 4", "index: -1"), "slow_bookie.index");
  ExpectRejected(Edit(kSlow, "warmup_s: 2", "warmup_s: 0.5"), "warmup_s");
  ExpectRejected(Edit(kSlow, "sync_delay_ms: 20",
                      "sync_delay_ms: 20, sync_delay_x_healthy_p99: -1"),
                 "slow_bookie.sync_delay_x_healthy_p99");
  ExpectRejected(Edit(kSlow, "sync_delay_ms: 20",
                      "sync_delay_ms: 20, sync_delay_x_healthy_p99: 5000"),
                 "slow_bookie.sync_delay_x_healthy_p99");
  {
    auto sized = ParseScenarioSpec(
        Edit(kSlow, "sync_delay_ms: 20",
             "sync_delay_ms: 20, sync_delay_x_healthy_p99: 6"));
    REQUIRE(sized.ok());
    CHECK(sized->sync_delay_x_healthy_p99 == 6);
  }
  ExpectRejected(Edit(kSlow, "[none, adaptive]", "[none, fastest]"),
                 "policies[1]");
  ExpectRejected(Edit(kGood, "kind: workload",
                      "kind: workload\nslow_bookie: {index: 1, "
                      "sync_delay_ms: 5}"),
                 "slow_bookie");
}

TEST_CASE("a hot ledger needs two ledgers and a paced rate", "[bkbench]") {
  auto hot = ParseScenarioSpec(
      Edit(kGood, "rate: 100", "rate: 100, hot_ledger_x: 20"));
  REQUIRE(hot.ok());
  CHECK(hot->hot_ledger_x == 20);
  ExpectRejected(Edit(kGood, "rate: 100", "rate: 100, hot_ledger_x: 0"),
                 "writers.hot_ledger_x");
  ExpectRejected(Edit(kGood, "rate: 100", "rate: 0, hot_ledger_x: 5"),
                 "writers.hot_ledger_x");
  // A workload may run once per policy.
  auto per_policy =
      ParseScenarioSpec(std::string(kGood) + "policies: [none, adaptive]\n");
  REQUIRE(per_policy.ok());
  CHECK(per_policy->policies.size() == 2);
}

TEST_CASE("the spread is the stddev of the bookies' mean write rates",
          "[bkbench]") {
  WorkloadRun run;
  run.label = "none";
  // Means 1, 3 and (ignoring the -1 of a missed report) 5 MB/s.
  for (const std::vector<double>& mbs :
       std::vector<std::vector<double>>{{1, 1}, {2, 4}, {5, -1, 5}}) {
    BookieSeries b;
    b.id = absl::StrCat("bookie-", run.bookies.size());
    for (double v : mbs) b.points.push_back({.write_mb_per_s = v});
    run.bookies.push_back(b);
  }
  const Spread s = BookieWriteSpread(run);
  CHECK(s.mean_mb_per_s == std::vector<double>{1, 3, 5});
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.stddev == Approx(std::sqrt(8.0 / 3.0)));
  // The section compares a second run against none's and names the hot
  // ledger's members.
  ScenarioResult r;
  r.spec.hot_ledger_x = 20;
  run.placements.push_back({7, {{.bookie = "bookie-2", .probability = 0.5}}});
  r.runs.push_back(run);
  WorkloadRun adaptive = run;
  adaptive.label = "adaptive";
  // Its estimates before placing: bookie-2 the least loaded of rack b,
  // bookie-0 alone in rack a.
  adaptive.bookies[0].rack = "a";
  adaptive.bookies[1].rack = "b";
  adaptive.bookies[2].rack = "b";
  adaptive.estimates_at_placement = {
      {"bookie-0", 4.0}, {"bookie-1", 2.5}, {"bookie-2", 0.5}};
  adaptive.left_out_at_placement = {
      {"bookie-1", "big slot: journal 55 % busy (> 50 %)"}};
  r.runs.push_back(adaptive);
  const std::string md = SpreadSection(r);
  CHECK(absl::StrContains(md, "| adaptive | 1.633 | 1.000 | 5.000 | 1.00 |"));
  CHECK(absl::StrContains(md, "| adaptive | bookie-2 |"));
  CHECK(absl::StrContains(md, "20x the rate"));
  // Ranked within each rack, the member marked; none's run has no
  // estimates and no rows.
  CHECK(absl::StrContains(md, "| adaptive | a | bookie-0 | 4.000 | 1 |  |"));
  CHECK(absl::StrContains(md,
                          "| adaptive | b | bookie-2 | 0.500 | 1 | **yes** |"));
  CHECK(absl::StrContains(md, "| adaptive | b | bookie-1 | 2.500 | 2 |  |"));
  // A bookie the policy would have left out says why; the others say
  // nothing.
  CHECK(absl::StrContains(md,
                          "| adaptive | b | bookie-1 | 2.500 | 2 |  | big "
                          "slot: journal 55 % busy (> 50 %) |"));
  CHECK(absl::StrContains(md, "| adaptive | a | bookie-0 | 4.000 | 1 |  |  |"));
  CHECK_FALSE(absl::StrContains(md, "| none | a |"));
  // Every ledger's placement, each run.
  CHECK(absl::StrContains(md, "| none | 7 | bookie-2 ("));
  CHECK(absl::StrContains(md, "| adaptive | 7 | bookie-2 ("));
}

TEST_CASE("a value of the wrong type is rejected with the key named",
          "[bkbench]") {
  ExpectRejected(Edit(kGood, "duration_s: 10", "duration_s: ten"),
                 "duration_s");
  ExpectRejected(Edit(kGood, "count: 2", "count: 2.5"), "ledgers.count");
  ExpectRejected(Edit(kGood, "entry_size: 100", "entry_size: [1]"),
                 "writers.entry_size");
  ExpectRejected(Edit(kGood, "cluster: {bookies: 3, racks: 3}", "cluster: 3"),
                 "cluster");
  ExpectRejected(Edit(kGood, "kind: workload", "kind: tailing"), "kind");
  CHECK_FALSE(ParseScenarioSpec("name: [unclosed").ok());
}

TEST_CASE("metric sums add every labelled sample of one name", "[bkbench]") {
  const std::string text =
      "# HELP bookie_read_cache_hits_total x\n"
      "bookie_read_cache_hits_total{bookie=\"b0\"} 10\n"
      "bookie_read_cache_hits_total{bookie=\"b1\"} 5\n"
      "bookie_read_cache_hits_total_other 100\n"
      "bookie_read_cache_misses_total 3\n";
  CHECK(SumMetric(text, "bookie_read_cache_hits_total") == 15);
  CHECK(SumMetric(text, "bookie_read_cache_misses_total") == 3);
  CHECK(SumMetric(text, "absent_total") == -1);
}

TEST_CASE("the CPU stall total is read from the some line of a PSI file",
          "[bkbench]") {
  CHECK(ParsePressureSomeTotalUs(
            "some avg10=2.36 avg60=1.56 avg300=4.76 total=9490499926\n"
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=12\n") == 9490499926);
  CHECK(ParsePressureSomeTotalUs("full avg10=0.00 total=12\n") == -1);
  CHECK(ParsePressureSomeTotalUs("some avg10=1.0 total=x\n") == -1);
  CHECK(ParsePressureSomeTotalUs("") == -1);
}

TEST_CASE("a machine summary leaves out the seconds without a figure",
          "[bkbench]") {
  std::vector<MachinePoint> points = {
      {1, 50, 20, -1}, {2, 70, 90, 4}, {3, -1, -1, -1}};
  const MachineSummary m = Summarise(points);
  CHECK(m.cpu_busy_mean == 60);
  CHECK(m.cpu_stall_mean == 55);
  CHECK(m.cpu_stall_max == 90);
  CHECK(m.io_stall_mean == 4);
  const MachineSummary none = Summarise({});
  CHECK(none.cpu_busy_mean == -1);
  CHECK(none.cpu_stall_max == -1);
}

TEST_CASE("a run report renders markdown and every chart", "[bkbench]") {
  if (sim::FindProgram("gnuplot").empty()) {
    WARN("gnuplot not installed; skipping the rendering");
    return;
  }
  auto spec = ParseScenarioSpec(kGood);
  REQUIRE(spec.ok());
  ScenarioResult r;
  r.spec = *spec;
  r.seed = 7;
  r.cluster = "test";
  WorkloadRun run;
  run.label = "run";
  for (int s = 1; s <= 3; ++s) {
    run.write.series.push_back({static_cast<double>(s), 100, 0, 1.0, 2.0});
    run.write.latency.Record(1000 * s);
  }
  run.write.acked = 300;
  run.write.last_entry = {149, 149};
  run.write.ledger_ids = {1, 2};
  BookieSeries b;
  b.id = "bookie-0";
  for (int s = 1; s <= 3; ++s) b.points.push_back({double(s), 1.0, 20, 3, 1});
  run.bookies.push_back(b);
  for (int s = 1; s <= 3; ++s) {
    run.machine.push_back({double(s), 40.0 + s, 10.0 * s, 1});
  }
  // 3,000 entries in 30 messages, 3,000 records in 150 syncs; 3,000 adds
  // 6 s in all; 150 groups queued 0.3 s, synced 0.45 s.
  run.add_path.bookies = 3;
  run.add_path.add_messages = 30;
  run.add_path.add_entries = 3000;
  run.add_path.journal_records = 3000;
  run.add_path.journal_syncs = 150;
  run.add_path.add_latency = {6.0, 3000};
  run.add_path.journal_queue = {0.3, 150};
  run.add_path.journal_sync = {0.45, 150};
  for (int i = 0; i < 2; ++i) {
    ReaderResult rr;
    rr.name = i ? "late" : "tail";
    rr.ledger_index = i;
    rr.entries_read = 150;
    rr.tail_latency.Record(500);
    run.readers.push_back(rr);
    run.reader_series.push_back(
        {{1, 50, 1.0, i ? -1 : 0}, {2, 50, 1.5, 10}, {3, 50, 1.2, 0}});
  }
  r.runs.push_back(run);
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("report");
  absl::Status s = WriteRunReport(r, dir);
  INFO(s.message());
  REQUIRE(s.ok());
  CHECK(std::filesystem::exists(dir + "/report.md"));
  CHECK(std::filesystem::exists(dir + "/result.json"));
  const std::string md = ReportMarkdown(r);
  // The machine table: busy mean 42, stall mean 20, worst second 30.
  CHECK(absl::StrContains(md, "| run | 42 | 20 | 30 | 1 |"));
  // The add path: 100 entries per message, 20 records per sync, an add 2
  // ms in the bookie, a group 2 ms queued and 3 ms syncing; the stages
  // nothing was recorded for read "-".
  CHECK(absl::StrContains(
      md, "| run | 100.0 | 20.0 | 2.00 | 2.00 | - | - | 3.00 | - |"));
  for (const std::string& png : ReportCharts(r)) {
    INFO(png);
    CHECK(std::filesystem::file_size(dir + "/" + png) > 0);
  }
}

}  // namespace bk::bkbench
