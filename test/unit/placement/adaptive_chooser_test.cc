#include "placement/adaptive_chooser.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "placement/rack_aware_policy.h"
#include "placement/weighted_selection.h"
#include "test/unit/placement/chooser_bench.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Bench;
using testing::Counts;
using testing::Id;
using testing::kNow;
using testing::kPolled;
using testing::MakeBookies;

TEST_CASE(
    "without reports, every bookie is drawn alike, with or without a "
    "rate",
    "[placement][adaptive]") {
  const uint64_t seed = 7;
  INFO("seed " << seed);
  Bench b(10);
  for (double slot : {-1.0, 0.5}) {
    INFO("slot " << slot);
    const Counts counts = b.Draw(20000, slot, seed);
    for (int i = 0; i < 10; ++i) {
      INFO(Id(i));
      CHECK(counts.contains(Id(i)));
      CHECK(counts.at(Id(i)) == Approx(2000).epsilon(0.15));
    }
  }
}

TEST_CASE(
    "slots of nearly equal rates are drawn with the rankless tilt, not "
    "each sent to one rank",
    "[placement][adaptive]") {
  const uint64_t seed = 83;
  INFO("seed " << seed);
  // Topics of nearly equal rate (1.000-1.007 MiB/s): each rate's quantile
  // is fixed, so rank matching would send it to the same ranks every time.
  auto bench = [](double min_spread) {
    AdaptiveOptions options;
    options.rank_match_min_spread = min_spread;
    auto b = std::make_unique<Bench>(40, options);
    for (int r = 0; r < 8; ++r) b->chooser.OnPlaced({}, 1 + r * 0.001, kNow);
    for (int i = 0; i < 40; ++i) b->Report(i, 10 + i * 0.1, 20);
    return b;
  };
  const Counts tilted = bench(0.25)->Draw(4000, 1.003, seed);
  const Counts matched = bench(0)->Draw(4000, 1.003, seed);
  INFO("bookies drawn: tilted " << tilted.size() << ", rank-matched "
                                << matched.size());
  CHECK(tilted.size() == 40);
  CHECK(matched.size() <= 10);
  // The tilt still favours the less loaded: b0-b9 over b30-b39.
  int low = 0, high = 0;
  for (int i = 0; i < 10; ++i) {
    low += tilted.contains(Id(i)) ? tilted.at(Id(i)) : 0;
    high += tilted.contains(Id(30 + i)) ? tilted.at(Id(30 + i)) : 0;
  }
  CHECK(low > 2 * high);
}

TEST_CASE(
    "a bookie reporting a saturated journal is never chosen while "
    "another is, and is when it is the only one",
    "[placement][adaptive]") {
  const uint64_t seed = 11;
  INFO("seed " << seed);
  Bench b(6);
  for (int i = 0; i < 6; ++i) b.Report(i, 10, i == 0 ? 95 : 20);
  b.LearnRates();
  for (double slot : {-1.0, 1.0, 50.0, 500.0}) {
    INFO("slot " << slot);
    CHECK_FALSE(b.Draw(3000, slot, seed).contains(Id(0)));
  }
  Bench alone(1);
  alone.Report(0, 10, 100);
  CHECK(alone.Draw(10, 5, seed).at(Id(0)) == 10);
}

TEST_CASE(
    "a bookie this client sees answering far slower than the rest is "
    "left out",
    "[placement][adaptive]") {
  const uint64_t seed = 13;
  INFO("seed " << seed);
  Bench b(8);
  for (int i = 0; i < 8; ++i) {
    b.chooser.Observe(Id(i), absl::Milliseconds(i == 3 ? 200 : 2), kNow);
  }
  CHECK_FALSE(b.Draw(3000, -1, seed).contains(Id(3)));
  // An observation older than observation_max_age no longer counts.
  Bench old(8);
  for (int i = 0; i < 8; ++i) {
    old.chooser.Observe(Id(i), absl::Milliseconds(i == 3 ? 200 : 2),
                        kNow - absl::Minutes(1));
  }
  CHECK(old.Draw(3000, -1, seed).contains(Id(3)));
}

TEST_CASE(
    "a big slot goes uniformly to the least loaded bookies with "
    "journal headroom",
    "[placement][adaptive]") {
  const uint64_t seed = 17;
  INFO("seed " << seed);
  Bench b(80);
  // b0 and b1 write least but their journals are 60 % busy (HDDs).
  for (int i = 0; i < 80; ++i) b.Report(i, i / 4.0, i < 2 ? 60 : 20);
  const Counts counts = b.Draw(8000, 40, seed);
  for (int i = 0; i < 80; ++i) {
    INFO(Id(i));
    if (i >= 2 && i < 10) {
      CHECK(counts.at(Id(i)) == Approx(1000).epsilon(0.15));
    } else {
      CHECK_FALSE(counts.contains(Id(i)));
    }
  }
}

TEST_CASE(
    "in a small cluster a big slot goes to the least loaded bookie with "
    "journal headroom",
    "[placement][adaptive]") {
  const uint64_t seed = 23;
  INFO("seed " << seed);
  // Nine bookies, as a three-rack cluster's rack rule may leave for a
  // slot: fewer than 16 candidates, so no draw among the least loaded.
  Bench b(9);
  // b0 writes least but its journal is 60 % busy; b4 is next.
  for (int i = 0; i < 9; ++i) {
    b.Report(i, i == 4 ? 0.5 : 1.0 + i, i == 0 ? 60 : 20);
  }
  const Counts counts = b.Draw(2000, 40, seed);
  CHECK(counts.size() == 1);
  CHECK(counts.at(Id(4)) == 2000);
}

TEST_CASE(
    "small slots leave the least loaded to big ones and go to fuller "
    "bookies the smaller they are, never above 1.5 x the mean",
    "[placement][adaptive]") {
  const uint64_t seed = 19;
  INFO("seed " << seed);
  Bench b(160);
  // b_i writes i / 4 MiB/s, b159 far above at 100: mean 20.25, so 1.5 x the
  // mean admits b0..b121; the 8 least loaded are kept for big slots.
  for (int i = 0; i < 159; ++i) b.Report(i, i / 4.0, 20);
  b.Report(159, 100, 20);
  // Recent slot rates 1..19 MiB/s and one big one (40, above the mean):
  // 1 is the smallest, 10 the median.
  for (int r = 1; r <= 19; ++r) b.chooser.OnPlaced({}, r, kNow);
  b.chooser.OnPlaced({}, 40, kNow);
  auto mean_rank = [&](double slot) {
    const Counts counts = b.Draw(4000, slot, seed);
    double sum = 0;
    for (const auto& [id, n] : counts) {
      const int i = std::stoi(id.substr(1));
      CHECK(i >= 8);
      CHECK(i <= 121);
      sum += static_cast<double>(i) * n;
    }
    return sum / 4000;
  };
  const double tiny = mean_rank(1);     // near the fullest allowed
  const double middle = mean_rank(10);  // near the middle of b8..b121
  INFO("mean rank: tiny " << tiny << ", middle " << middle);
  CHECK(tiny > 105);
  CHECK(middle == Approx(64.5).margin(8));
}

TEST_CASE(
    "without big slots among the remembered rates, no bookie is held "
    "back for them",
    "[placement][adaptive]") {
  const uint64_t seed = 20;
  INFO("seed " << seed);
  // b_i writes i MiB/s, mean 23.5: slots of 1..20 MiB/s are all small,
  // and b0..b35 are within 1.5 x the mean.
  Bench b(48);
  for (int i = 0; i < 48; ++i) b.Report(i, i, 20);
  for (int r = 1; r <= 20; ++r) b.chooser.OnPlaced({}, r, kNow);
  // The heaviest remembered rate goes to the least loaded ranks ...
  const Counts counts = b.Draw(4000, 20, seed);
  int least = 0;
  for (int i = 0; i < 2; ++i)
    least += counts.contains(Id(i)) ? counts.at(Id(i)) : 0;
  INFO("b0 + b1: " << least);
  CHECK(least > 400);
  // ... until a big slot (40 > the mean) is remembered: then the 2 least
  // loaded (one in 16 of the 36 candidates) are kept for big slots.
  b.chooser.OnPlaced({}, 40, kNow);
  const Counts held = b.Draw(4000, 20, seed);
  CHECK_FALSE(held.contains(Id(0)));
  CHECK_FALSE(held.contains(Id(1)));
  CHECK(held.contains(Id(2)));
}

TEST_CASE(
    "slots of one rate are spread over identical bookies, not sent "
    "to one rank",
    "[placement][adaptive]") {
  const uint64_t seed = 21;
  INFO("seed " << seed);
  Bench b(12);
  for (int i = 0; i < 12; ++i) b.Report(i, 5, 20);
  for (int r = 0; r < 50; ++r) b.chooser.OnPlaced({}, 0.5, kNow);
  const Counts counts = b.Draw(6000, 0.5, seed);
  for (int i = 0; i < 12; ++i) {
    INFO(Id(i));
    CHECK(counts.at(Id(i)) == Approx(500).epsilon(0.25));
  }
}

TEST_CASE(
    "stale reports say nothing: a saturated report older than "
    "max_report_age does not keep a bookie out",
    "[placement][adaptive]") {
  const uint64_t seed = 23;
  INFO("seed " << seed);
  Bench b(4);
  for (int i = 0; i < 4; ++i) b.Report(i, 10, 20);
  b.Report(0, 10, 100, kNow - absl::Minutes(10));
  const Counts counts = b.Draw(4000, -1, seed);
  CHECK(counts.at(Id(0)) > 500);
}

// Over many polls 30 s apart, bookies reported at 4 MiB/s were at 24 the
// next time (other clients filled them); those at 24 stayed there.
void TeachFilling(AdaptiveChooser& chooser) {
  const BookieInfo filled{.write_bytes_per_second = 24 * kBytesPerMiB};
  for (int poll = 0; poll < 100; ++poll) {
    const absl::Time at = kNow - absl::Hours(1) + absl::Seconds(30 * poll);
    const BookieReport low{
        BookieInfo{.write_bytes_per_second = 4 * kBytesPerMiB}, at};
    const BookieReport high{filled, at};
    chooser.OnReport("b", &low, filled, at + absl::Seconds(30));
    for (int k = 0; k < 3; ++k) {
      chooser.OnReport("b", &high, filled, at + absl::Seconds(30));
    }
  }
}

TEST_CASE(
    "a stale report is brought forward by the drift its load bin "
    "showed, for slots with and without a rate",
    "[placement][adaptive]") {
  const uint64_t seed = 27;
  INFO("seed " << seed);
  for (bool forecast : {false, true}) {
    INFO("forecast " << forecast);
    AdaptiveOptions options;
    if (!forecast) options.forecast_max_age = absl::ZeroDuration();
    Bench b(16, options);
    TeachFilling(b.chooser);
    // Reports 45 s old: b0..b3 at 4 (forecast: 4 + 45 x 20 / 30 = 34), b4
    // saturated, b5..b14 at 24, b15 never reported (counts the median, 24,
    // and is not forecast).
    const absl::Time seen = kNow - absl::Seconds(45);
    for (int i = 0; i < 15; ++i) {
      b.Report(i, i < 4 ? 4 : 24, i == 4 ? 95 : 20, seen);
    }
    const AdaptiveChooser::View view = b.chooser.Prepare(b.topology, kNow);
    CHECK(view.load.at(Id(0)) == Approx(forecast ? 34 : 4).margin(0.5));
    CHECK(view.load.at(Id(5)) == Approx(24).margin(0.5));
    CHECK(view.load.at(Id(15)) == Approx(24));

    // A big slot (40 MiB/s) among 14 bookies with headroom (b0..b3,
    // b5..b14): fewer than 16, so the least loaded. Without the forecast
    // that is b0..b3 (every draw, ties spread); with it they are the four
    // most loaded (none).
    const Counts big = b.Draw(4000, 40, seed);
    int low = 0;
    for (int i = 0; i < 4; ++i) low += big.contains(Id(i)) ? big.at(Id(i)) : 0;
    INFO("big slots on b0..b3: " << low);
    CHECK(big.contains(Id(4)) == false);
    if (forecast) {
      CHECK(low == 0);
    } else {
      CHECK(low == 4000);
      for (int i = 0; i < 4; ++i)
        CHECK(big.at(Id(i)) == Approx(1000).epsilon(0.15));
    }
    // No rate: the rankless tilt favours b0..b3 without the forecast (about
    // 39 % of the draws) and disfavours them with it (about 16 %).
    const Counts blind = b.Draw(4000, -1, seed);
    int blind_low = 0;
    for (int i = 0; i < 4; ++i) {
      blind_low += blind.contains(Id(i)) ? blind.at(Id(i)) : 0;
    }
    INFO("rateless slots on b0..b3: " << blind_low);
    CHECK(blind.contains(Id(4)) == false);
    if (forecast) {
      CHECK(blind_low < 900);
    } else {
      CHECK(blind_low > 1300);
    }
  }
  // Reports older than max_report_age say nothing: all count the median,
  // nothing is brought forward.
  Bench stale(4);
  TeachFilling(stale.chooser);
  for (int i = 0; i < 4; ++i) {
    stale.Report(i, i == 0 ? 4 : 24, 20, kNow - absl::Minutes(10));
  }
  const AdaptiveChooser::View view =
      stale.chooser.Prepare(stale.topology, kNow);
  CHECK(view.load.at(Id(0)) == view.load.at(Id(1)));
}

TEST_CASE(
    "the client's own placements count until reports show them, so "
    "one client does not pile onto the idle bookie",
    "[placement][adaptive]") {
  const uint64_t seed = 29;
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  PlacementOptions options;
  options.weighting = Weighting::kAdaptive;
  RackAwarePolicy policy(options, gen);
  policy.OnClusterChanged(MakeBookies(10, 1), {});
  // b0 idle, the rest writing 20 MiB/s; reports do not move afterwards.
  for (int i = 0; i < 10; ++i) {
    policy.OnBookieInfo(
        Id(i),
        BookieInfo{.journal_io_util = 20,
                   .write_bytes_per_second = (i == 0 ? 0 : 20) * kBytesPerMiB},
        kNow);
  }
  policy.AdvanceTime(kNow);
  LedgerHints hints;
  hints.expected_write_bytes_per_second = 40 * kBytesPerMiB;  // big slots
  Counts counts;
  for (int l = 0; l < 20; ++l) {
    absl::StatusOr<PlacementResult> p = policy.NewEnsemble(1, 1, 1, {}, hints);
    REQUIRE(p.ok());
    ++counts[p->ensemble[0]];
  }
  // A report-only rule would put all 20 on b0; with its own placements
  // counted, b0 takes a share like any other.
  INFO("b0 " << counts[Id(0)]);
  CHECK(counts[Id(0)] <= 4);
  CHECK(counts.size() >= 8);
}

TEST_CASE(
    "other clients' ledgers the policy learns of count like its own "
    "placements: the idle bookie they filled is left alone",
    "[placement][adaptive]") {
  const uint64_t seed = 31;
  INFO("seed " << seed);
  for (bool told : {false, true}) {
    INFO("told of other clients' ledgers: " << told);
    std::mt19937_64 gen(seed);
    PlacementOptions options;
    options.weighting = Weighting::kAdaptive;
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeBookies(10, 1), {});
    // b0 idle, the rest writing 20 MiB/s; reports do not move afterwards.
    for (int i = 0; i < 10; ++i) {
      policy.OnBookieInfo(Id(i),
                          BookieInfo{.journal_io_util = 20,
                                     .write_bytes_per_second =
                                         (i == 0 ? 0 : 20) * kBytesPerMiB},
                          kNow);
    }
    policy.AdvanceTime(kNow);
    LedgerHints hints;
    hints.expected_write_bytes_per_second = 40 * kBytesPerMiB;  // big slots
    // Other clients just put ten such ledgers on b0.
    if (told) {
      for (int l = 0; l < 10; ++l) policy.OnPlacedElsewhere({Id(0)}, 1, hints);
    }
    int on_b0 = 0;
    for (int l = 0; l < 40; ++l) {
      absl::StatusOr<PlacementResult> p =
          policy.NewEnsemble(1, 1, 1, {}, hints);
      REQUIRE(p.ok());
      if (p->ensemble[0] == Id(0)) ++on_b0;
    }
    // Not told, b0 stays among the 8 least loaded and takes about one in
    // eight; told, it writes 400 MiB/s, and this client's own 40 ledgers
    // (1600 MiB/s over b1..b9) leave all nine below it.
    INFO("on b0: " << on_b0);
    if (told) {
      CHECK(on_b0 == 0);
    } else {
      CHECK(on_b0 >= 1);
    }
  }
}

TEST_CASE(
    "without hints, random, disk and load placement choose exactly as "
    "with them",
    "[placement]") {
  for (Weighting w : {Weighting::kNone, Weighting::kDisk, Weighting::kLoad}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      INFO("weighting " << WeightingName(w) << ", seed " << seed);
      PlacementOptions options;
      options.weighting = w;
      std::mt19937_64 gen_a(seed);
      std::mt19937_64 gen_b(seed);
      RackAwarePolicy a(options, gen_a);
      RackAwarePolicy b(options, gen_b);
      for (RackAwarePolicy* p : {&a, &b}) {
        p->OnClusterChanged(MakeBookies(12, 3), {});
        for (int i = 0; i < 12; ++i) {
          p->OnBookieInfo(Id(i),
                          BookieInfo{.free_disk_bytes = 1000 * (i + 1),
                                     .journal_io_util = 7.0 * i,
                                     .write_bytes_per_second = 1e6 * i},
                          kNow);
        }
      }
      LedgerHints hints;
      hints.expected_write_bytes_per_second = 5e6;
      hints.custom_metadata["region"] = "east";
      auto plain = a.NewEnsemble(3, 2, 2, {});
      auto hinted = b.NewEnsemble(3, 2, 2, {}, hints);
      REQUIRE(plain.ok());
      REQUIRE(hinted.ok());
      CHECK(plain->ensemble == hinted->ensemble);
      auto plain_r = a.ReplaceBookie(plain->ensemble, 1, 2, 2, {});
      auto hinted_r = b.ReplaceBookie(hinted->ensemble, 1, 2, 2, {}, hints);
      REQUIRE(plain_r.ok());
      REQUIRE(hinted_r.ok());
      CHECK(plain_r->bookie == hinted_r->bookie);
    }
  }
}

}  // namespace
}  // namespace bk::placement
