// The adaptive chooser on fresh reports (polled every second or two): the
// least loaded, not the rank rule; slow reports left out, a busy journal
// not; the client's own closes taken off at once.

#include <cstdint>
#include <random>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "placement/adaptive_chooser.h"
#include "test/unit/placement/chooser_bench.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Bench;
using testing::Counts;
using testing::Id;
using testing::kNow;
using testing::kPolled;

TEST_CASE(
    "with every report fresh a slot with a rate goes to the least loaded "
    "bookie, with one report a poll old the rank rule draws",
    "[placement][adaptive]") {
  const uint64_t seed = 71;
  INFO("seed " << seed);
  Bench b(40);
  b.LearnRates();
  const absl::Time fresh = kNow - absl::Seconds(1);
  // b0 writes least and its journal reads 95 % busy, its adds as quick as
  // anyone's: on reports this fresh that is not saturation (a journal that
  // syncs back to back writes more per sync), so it takes a slot below the
  // mean. A big slot keeps to journals with headroom (<= 50 % busy): b7,
  // which writes least after it.
  for (int i = 0; i < 40; ++i) {
    b.Polled(i,
             i == 0   ? 0.1
             : i == 7 ? 0.5
                      : 1.0 + i,
             i == 0 ? 95 : 20, fresh, absl::Seconds(1));
  }
  for (double slot : {0.5, 30.0, 500.0}) {
    INFO("slot " << slot);
    const Counts counts = b.Draw(500, slot, seed);
    CHECK(counts.size() == 1);
    CHECK(counts.at(Id(slot < 1 ? 0 : 7)) == 500);
  }
  // Without a rate: the rankless draw, fresh or not.
  CHECK(b.Draw(2000, -1, seed).size() > 10);
  // One report older than least_loaded_report_age: the rank rule, which
  // sends a light slot to the fuller bookies, a few ranks around its
  // target.
  Bench stale(40);
  stale.LearnRates();
  for (int i = 0; i < 40; ++i) {
    stale.Polled(i, i == 7 ? 0.5 : 1.0 + i, 20, i == 20 ? kPolled : fresh,
                 absl::Seconds(1));
  }
  const Counts light = stale.Draw(2000, 1, seed);
  CHECK(light.size() > 1);
  CHECK_FALSE(light.contains(Id(7)));
  // Every report a moment old, but polled every 30 s: the rule too (other
  // clients' views are up to a poll old).
  Bench slow_polls(40);
  slow_polls.LearnRates();
  for (int i = 0; i < 40; ++i) {
    slow_polls.Polled(i, i == 7 ? 0.5 : 1.0 + i, 20, fresh, absl::Seconds(30));
  }
  const Counts polled = slow_polls.Draw(2000, 1, seed);
  CHECK(polled.size() > 1);
  CHECK_FALSE(polled.contains(Id(7)));
  // least_loaded_report_age 0: never.
  AdaptiveOptions off;
  off.least_loaded_report_age = absl::ZeroDuration();
  Bench never(40, off);
  never.LearnRates();
  for (int i = 0; i < 40; ++i) {
    never.Polled(i, i == 7 ? 0.5 : 1.0 + i, 20, fresh, absl::Seconds(1));
  }
  const Counts ruled = never.Draw(2000, 1, seed);
  CHECK(ruled.size() > 1);
  CHECK_FALSE(ruled.contains(Id(7)));
}

TEST_CASE(
    "with fresh reports a bookie reporting slow adds is not the least "
    "loaded, though it writes least",
    "[placement][adaptive]") {
  const uint64_t seed = 79;
  INFO("seed " << seed);
  Bench b(20);
  b.LearnRates();
  const absl::Time fresh = kNow - absl::Seconds(1);
  // b2's journal was slowed down: it writes least, and its adds take 60 ms
  // against 1 ms elsewhere (over 16 x the median). b5 is next least.
  for (int i = 0; i < 20; ++i) {
    b.Polled(i,
             i == 2   ? 0.5
             : i == 5 ? 1.0
                      : 2.0 + i,
             20, fresh, absl::Seconds(1), i == 2 ? 60 : 1);
  }
  const Counts counts = b.Draw(300, 3, seed);
  CHECK(counts.size() == 1);
  CHECK(counts.at(Id(5)) == 300);
}

TEST_CASE(
    "a ledger this client closed comes off its bookies until reports show "
    "it, so the next one can take its room",
    "[placement][adaptive]") {
  const uint64_t seed = 73;
  INFO("seed " << seed);
  Bench b(10);
  b.LearnRates();
  const absl::Time fresh = kNow - absl::Seconds(1);
  // b3 carries a 25 MiB/s slot of this client's: 30 reported, the rest 10.
  for (int i = 0; i < 10; ++i) {
    b.Polled(i, i == 3 ? 30 : 10, 20, fresh, absl::Seconds(1));
  }
  CHECK_FALSE(b.Draw(200, 25, seed).contains(Id(3)));
  b.chooser.OnClosed({Id(3)}, 25, kNow - absl::Milliseconds(500));
  const AdaptiveChooser::View view = b.chooser.Prepare(b.topology, kNow);
  CHECK(view.load.at(Id(3)) == Approx(5));
  const Counts counts = b.Draw(200, 25, seed);
  CHECK(counts.size() == 1);
  CHECK(counts.at(Id(3)) == 200);
  // An unknown rate changes nothing.
  b.chooser.OnClosed({Id(4)}, -1, kNow);
  CHECK(b.chooser.Prepare(b.topology, kNow).load.at(Id(4)) == Approx(10));
}

TEST_CASE(
    "a probe's least-loaded choice on fresh reports takes a busy-reading "
    "journal with quick adds, as the fresh rule does, and on 30 s polls "
    "leaves it out",
    "[placement][adaptive]") {
  const uint64_t seed = 83;
  INFO("seed " << seed);
  const absl::Time fresh = kNow - absl::Seconds(1);
  // b0 writes least and its journal reads 95 % busy with adds as quick as
  // anyone's (a journal syncing back to back); the others read 20 %.
  auto choose_least = [&](absl::Duration poll_gap) {
    Bench b(12);
    b.LearnRates();
    for (int i = 0; i < 12; ++i) {
      b.Polled(i, i == 0 ? 0.1 : 1.0 + i, i == 0 ? 95 : 20, fresh, poll_gap);
    }
    const AdaptiveChooser::View view = b.chooser.Prepare(b.topology, kNow);
    std::mt19937_64 gen(seed);
    Counts counts;
    for (int k = 0; k < 200; ++k) {
      ++counts[*b.ids[b.chooser.ChooseLeast(b.ids, 0.5, view, b.topology, kNow,
                                            gen)]];
    }
    return counts;
  };
  // Polled every second: the least loaded, busy reading and all. (Before,
  // the probe's answer left out again what the fresh rule had let in.)
  const Counts polled_often = choose_least(absl::Seconds(1));
  CHECK(polled_often.size() == 1);
  CHECK(polled_often.contains(Id(0)));
  // Polled every 30 s: step 1 asks utilisation; the next least loaded.
  const Counts polled_seldom = choose_least(absl::Seconds(30));
  CHECK(polled_seldom.size() == 1);
  CHECK(polled_seldom.contains(Id(1)));
}

TEST_CASE(
    "the left-out read-out names a slow report, a busy journal for a big "
    "slot and, on a poll-old report, a saturated journal",
    "[placement][adaptive]") {
  const uint64_t seed = 73;
  INFO("seed " << seed);
  Bench b(10);
  const absl::Time fresh = kNow - absl::Seconds(1);
  // b3's adds take 100 ms (the others' 1 ms), b7's journal reads 60 % busy.
  for (int i = 0; i < 10; ++i) {
    b.Polled(i, 1.0 + i, i == 7 ? 60 : 20, fresh, absl::Seconds(1),
             i == 3 ? 100 : 1);
  }
  const AdaptiveChooser::View view = b.chooser.Prepare(b.topology, kNow);
  auto why = [&](int i, double slot) {
    return b.chooser.LeftOutReason(Id(i), b.ids, slot, view, b.topology, kNow);
  };
  // A big slot (above the mean of 5.5 MiB/s): b3 for its report, b7 for
  // its journal; the rest may take it.
  CHECK(absl::StartsWith(why(3, 30), "slow report: add p99 100.0 ms"));
  CHECK(why(7, 30) == "big slot: journal 60 % busy (> 50 %)");
  CHECK(why(0, 30).empty());
  CHECK(why(9, 30).empty());
  // A small slot: only the slow report.
  CHECK(absl::StartsWith(why(3, 0.5), "slow report"));
  CHECK(why(7, 0.5).empty());
  // Choose agrees: the big slot goes to b0, the least loaded of the rest.
  const Counts big = b.Draw(200, 30, seed);
  CHECK(big.size() == 1);
  CHECK(big.count(Id(0)) == 1);
  // Without a rate the fresh rule does not apply, nor does the big-slot
  // test: nothing is left out of these reports.
  CHECK(why(3, -1).empty());
  CHECK(why(7, -1).empty());

  // Reports a poll old: a journal reading >= 90 % busy is left out.
  Bench stale(10);
  for (int i = 0; i < 10; ++i) {
    stale.Polled(i, 1.0 + i, i == 2 ? 95 : 20, kPolled, absl::Seconds(1));
  }
  const AdaptiveChooser::View stale_view =
      stale.chooser.Prepare(stale.topology, kNow);
  CHECK(stale.chooser.LeftOutReason(Id(2), stale.ids, 0.5, stale_view,
                                    stale.topology,
                                    kNow) == "journal 95 % busy (>= 90 %)");
  CHECK(stale.chooser
            .LeftOutReason(Id(1), stale.ids, 0.5, stale_view, stale.topology,
                           kNow)
            .empty());
}

}  // namespace
}  // namespace bk::placement
