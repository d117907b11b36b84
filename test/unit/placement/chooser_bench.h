// Bench: an AdaptiveChooser over n bookies in one rack, with the reports
// and draws the chooser's tests give it (adaptive_chooser_test.cc,
// adaptive_chooser_fresh_test.cc).

#ifndef BK_TEST_UNIT_PLACEMENT_CHOOSER_BENCH_H_
#define BK_TEST_UNIT_PLACEMENT_CHOOSER_BENCH_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "placement/adaptive_chooser.h"
#include "placement/topology.h"
#include "placement/weighted_selection.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement::testing {

inline const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// A report a poll old: older than least_loaded_report_age, so the rank
// rule, not the least loaded, chooses (the tests of that rule).
inline const absl::Time kPolled = kNow - absl::Seconds(10);

// A chooser over n bookies in one rack; bookie i reports writing
// load(i) MiB/s with journal utilisation util(i) percent, received at `at`.
struct Bench {
  Bench(int n, const AdaptiveOptions& options = AdaptiveOptions{})
      : chooser(options) {
    topology.SetMembers(MakeBookies(n, 1), {});
    for (const BookieId& id : topology.writable()) ids.push_back(&id);
  }
  void Report(int i, double mib, double util, absl::Time at = kPolled,
              double latency_ms = 1) {
    const BookieInfo info{.journal_io_util = util,
                          .write_bytes_per_second = mib * kBytesPerMiB,
                          .add_latency_p99_ms = latency_ms};
    // As RackAwarePolicy::OnBookieInfo does.
    chooser.OnReport(Id(i), topology.Report(Id(i)), info, at);
    topology.SetReport(Id(i), info, at);
  }
  // Two reports of the same figures `gap` apart, the last at `at`: a client
  // polling every `gap`.
  void Polled(int i, double mib, double util, absl::Time at, absl::Duration gap,
              double latency_ms = 1) {
    Report(i, mib, util, at - gap, latency_ms);
    Report(i, mib, util, at, latency_ms);
  }
  // Counts of `draws` choices for a slot of `slot_mib`, each placement
  // forgotten at once (the view is prepared once).
  Counts Draw(int draws, double slot_mib, uint64_t seed) {
    std::mt19937_64 gen(seed);
    const AdaptiveChooser::View view = chooser.Prepare(topology, kNow);
    Counts counts;
    for (int d = 0; d < draws; ++d) {
      ++counts[*ids[chooser.Choose(ids, slot_mib, view, topology, kNow, gen)]];
    }
    return counts;
  }
  // Teaches the chooser's quantiles: slot rates 1, 2, ..., 100.
  void LearnRates() {
    for (int r = 1; r <= 100; ++r) chooser.OnPlaced({}, r, kNow);
  }

  Topology topology;
  AdaptiveChooser chooser;
  std::vector<const BookieId*> ids;
};

}  // namespace bk::placement::testing

#endif  // BK_TEST_UNIT_PLACEMENT_CHOOSER_BENCH_H_
