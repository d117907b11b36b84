// Probe on placement: RackAwarePolicy::ProbeCandidates names the bookies to
// ask for a fresh report, OnProbeReport takes the answers, and the next
// choice ranks the answered bookies by them.

#include <cstdint>
#include <random>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "placement/rack_aware_policy.h"
#include "placement/weighted_selection.h"
#include "test/unit/placement/test_cluster.h"

namespace bk::placement {
namespace {

using testing::Counts;
using testing::Id;
using testing::MakeBookies;

const absl::Time kStale = absl::FromUnixSeconds(1'700'000'000);
const absl::Time kNow = kStale + absl::Seconds(20);

BookieInfo Report(double mib_per_second, double util_percent) {
  BookieInfo info;
  info.free_disk_bytes = 1000;
  info.total_disk_bytes = 2000;
  info.journal_io_util = util_percent;
  info.write_bytes_per_second = mib_per_second * kBytesPerMiB;
  return info;
}

PlacementOptions Probing(int candidates, AdaptiveOptions::ProbePick pick) {
  PlacementOptions options;
  options.weighting = Weighting::kAdaptive;
  options.adaptive.probe_candidates = candidates;
  options.adaptive.probe_pick = pick;
  // No drift forecast: a report's figure is the estimate, so the tests
  // compare estimates without the drift learned from probe answers.
  options.adaptive.forecast_max_age = absl::ZeroDuration();
  return options;
}

// 20 bookies in 2 racks. The stale reports (20 s old) show b0..b3 idle and
// the others at 10 MiB/s, 20 % busy.
void ReportStale(RackAwarePolicy& policy) {
  policy.OnClusterChanged(MakeBookies(20, 2), {});
  for (int i = 0; i < 20; ++i) {
    policy.OnBookieInfo(Id(i), i < 4 ? Report(0, 1) : Report(10, 20), kStale);
  }
  policy.AdvanceTime(kNow);
}

LedgerHints Rate(double mib_per_second) {
  LedgerHints hints;
  hints.expected_write_bytes_per_second = mib_per_second * kBytesPerMiB;
  return hints;
}

absl::flat_hash_set<BookieId> AsSet(const std::vector<BookieId>& ids) {
  return absl::flat_hash_set<BookieId>(ids.begin(), ids.end());
}

TEST_CASE("probe candidates: how many, which, and only when asked for",
          "[placement][probe]") {
  using Pick = AdaptiveOptions::ProbePick;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    SECTION("least: the D x slots least loaded of the pool") {
      std::mt19937_64 gen(seed);
      RackAwarePolicy policy(Probing(2, Pick::kLeast), gen);
      ReportStale(policy);
      const std::vector<BookieId> ids = policy.ProbeCandidates(2, 2, 2, {}, {});
      CHECK(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
      // Excluded bookies are never probed; the next least loaded are.
      const std::vector<BookieId> without =
          policy.ProbeCandidates(2, 2, 1, {Id(0), Id(1)}, {});
      CHECK(AsSet(without) == AsSet({Id(2), Id(3)}));
    }
    SECTION("mixed: half the least loaded, the rest from the others") {
      std::mt19937_64 gen(seed);
      RackAwarePolicy policy(Probing(4, Pick::kMixed), gen);
      ReportStale(policy);
      const std::vector<BookieId> ids = policy.ProbeCandidates(2, 2, 2, {}, {});
      REQUIRE(ids.size() == 8);
      CHECK(AsSet(ids).size() == 8);
      int idle = 0;
      for (const BookieId& id : ids) {
        for (int i = 0; i < 4; ++i) idle += id == Id(i) ? 1 : 0;
      }
      CHECK(idle == 4);
    }
    SECTION("never more than the pool") {
      std::mt19937_64 gen(seed);
      RackAwarePolicy policy(Probing(50, Pick::kRandom), gen);
      ReportStale(policy);
      CHECK(AsSet(policy.ProbeCandidates(2, 2, 2, {Id(7)}, {})).size() == 19);
    }
  }
  SECTION("random: every bookie is probed about equally often") {
    Counts counts;
    for (uint64_t seed = 1; seed <= 400; ++seed) {
      std::mt19937_64 gen(seed);
      RackAwarePolicy policy(Probing(2, Pick::kRandom), gen);
      ReportStale(policy);
      const std::vector<BookieId> ids = policy.ProbeCandidates(2, 2, 2, {}, {});
      REQUIRE(AsSet(ids).size() == 4);
      for (const BookieId& id : ids) ++counts[id];
    }
    // 400 x 4 probes over 20 bookies: 80 expected each, sd about 8.
    for (int i = 0; i < 20; ++i) {
      INFO(Id(i) << " probed " << counts[Id(i)] << " times");
      CHECK(counts[Id(i)] >= 45);
      CHECK(counts[Id(i)] <= 115);
    }
  }
  SECTION("off, or not the adaptive weighting: no probes") {
    std::mt19937_64 gen(1);
    RackAwarePolicy off(Probing(0, Pick::kLeast), gen);
    ReportStale(off);
    CHECK(off.ProbeCandidates(2, 2, 2, {}, {}).empty());
    PlacementOptions load = Probing(4, Pick::kLeast);
    load.weighting = Weighting::kLoad;
    RackAwarePolicy bp65(load, gen);
    ReportStale(bp65);
    CHECK(bp65.ProbeCandidates(2, 2, 2, {}, {}).empty());
  }
}

TEST_CASE(
    "probed figures override the stale ones for the probed bookies only, "
    "and the choice ranks the bookies that answered",
    "[placement][probe]") {
  Counts chosen;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(Probing(4, AdaptiveOptions::ProbePick::kLeast), gen);
    ReportStale(policy);
    const std::vector<BookieId> ids = policy.ProbeCandidates(2, 2, 1, {}, {});
    REQUIRE(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
    // Other clients filled b0 and b1 since the stale report; b2 and b3 are
    // still idle.
    for (const BookieId& id : ids) {
      const bool filled = id == Id(0) || id == Id(1);
      policy.OnProbeReport(id, filled ? Report(60, 40) : Report(0, 1), kNow);
    }
    CHECK(policy.topology().Report(Id(0))->received_at == kNow);
    CHECK(policy.topology().Report(Id(0))->info.write_bytes_per_second ==
          60 * kBytesPerMiB);
    // An unprobed bookie keeps its stale report.
    CHECK(policy.topology().Report(Id(5))->received_at == kStale);
    CHECK(policy.topology().Report(Id(5))->info.write_bytes_per_second ==
          10 * kBytesPerMiB);
    // A big slot goes to the least loaded of the answered bookies.
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(1, 1, 1, {}, Rate(40));
    REQUIRE(p.ok());
    ++chosen[p->ensemble[0]];
  }
  INFO("b2 " << chosen[Id(2)] << ", b3 " << chosen[Id(3)]);
  CHECK(chosen[Id(2)] + chosen[Id(3)] == 200);
  CHECK(chosen[Id(2)] >= 60);
  CHECK(chosen[Id(3)] >= 60);
}

TEST_CASE(
    "the answered set is used for one choice only, and a slot no answered "
    "bookie may take chooses as without probes",
    "[placement][probe]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(Probing(1, AdaptiveOptions::ProbePick::kRandom),
                           gen);
    ReportStale(policy);
    // b19 answers, unchanged from its stale report.
    policy.OnProbeReport(Id(19), Report(10, 20), kNow);
    // Excluded, it cannot take the slot: the choice falls back to every
    // eligible bookie, where the stale idle b0..b3 lead for a big slot.
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(1, 1, 1, {Id(19)}, Rate(40));
    REQUIRE(p.ok());
    const BookieId& got = p->ensemble[0];
    CHECK((got == Id(0) || got == Id(1) || got == Id(2) || got == Id(3)));
    // The next choice has no answered set: a small slot is not held to b19.
    int on_b19 = 0;
    for (int l = 0; l < 20; ++l) {
      absl::StatusOr<PlacementResult> q =
          policy.NewEnsemble(1, 1, 1, {}, Rate(1));
      REQUIRE(q.ok());
      on_b19 += q->ensemble[0] == Id(19) ? 1 : 0;
    }
    CHECK(on_b19 < 20);
  }
}

TEST_CASE(
    "a probe that fails leaves the bookie's report, estimate and rank as "
    "they were",
    "[placement][probe]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    // Twins: `partial` hears from b2 and b3 (figures as before), not from
    // b0 and b1; `silent` hears from no one.
    std::mt19937_64 gen_a(seed);
    std::mt19937_64 gen_b(seed);
    const PlacementOptions options =
        Probing(4, AdaptiveOptions::ProbePick::kLeast);
    RackAwarePolicy partial(options, gen_a);
    RackAwarePolicy silent(options, gen_b);
    for (RackAwarePolicy* p : {&partial, &silent}) {
      ReportStale(*p);
      REQUIRE(AsSet(p->ProbeCandidates(2, 2, 1, {}, {})) ==
              AsSet({Id(0), Id(1), Id(2), Id(3)}));
    }
    partial.OnProbeReport(Id(2), Report(0, 1), kNow);
    partial.OnProbeReport(Id(3), Report(0, 1), kNow);
    CHECK(partial.topology().Report(Id(0))->received_at == kStale);
    // With b2 and b3 excluded no answered bookie is eligible: both choose
    // by the same estimates, the unanswered b0 and b1 still the least
    // loaded.
    const BookieSet excluded = {Id(2), Id(3)};
    absl::StatusOr<PlacementResult> a =
        partial.NewEnsemble(1, 1, 1, excluded, Rate(40));
    absl::StatusOr<PlacementResult> b =
        silent.NewEnsemble(1, 1, 1, excluded, Rate(40));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->ensemble == b->ensemble);
    CHECK((a->ensemble[0] == Id(0) || a->ensemble[0] == Id(1)));
  }
}

TEST_CASE(
    "a bookie whose fresh report shows a saturated journal is not chosen, "
    "however little it writes",
    "[placement][probe]") {
  Counts chosen;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options = Probing(2, AdaptiveOptions::ProbePick::kLeast);
    // The rule over the answered bookies, or the least loaded of them.
    options.adaptive.probe_choose_least = seed % 4 < 2;
    RackAwarePolicy policy(options, gen);
    ReportStale(policy);
    const std::vector<BookieId> ids = policy.ProbeCandidates(2, 2, 2, {}, {});
    REQUIRE(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
    // b0 slowed down: it writes less than any (its journal cannot keep
    // up) and reports it 100 % busy. The others have filled up.
    for (const BookieId& id : ids) {
      policy.OnProbeReport(id, id == Id(0) ? Report(2, 100) : Report(30, 45),
                           kNow);
    }
    // A big slot on odd seeds, a small one on even seeds.
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(2, 2, 2, {}, Rate(seed % 2 == 1 ? 40 : 1));
    REQUIRE(p.ok());
    for (const BookieId& id : p->ensemble) ++chosen[id];
  }
  CHECK(chosen[Id(0)] == 0);
}

TEST_CASE("rule pick: candidates are drawn by the rule, without repeats",
          "[placement][probe]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(Probing(2, AdaptiveOptions::ProbePick::kRule), gen);
    ReportStale(policy);
    // A big slot: the rule draws among the two least loaded, so both
    // candidates are of the stale idle b0..b3.
    const std::vector<BookieId> big =
        policy.ProbeCandidates(1, 1, 1, {}, Rate(40));
    REQUIRE(AsSet(big).size() == 2);
    for (const BookieId& id : big) {
      CHECK((id == Id(0) || id == Id(1) || id == Id(2) || id == Id(3)));
    }
    // A small slot: the draw spreads over the ranks, still distinct.
    CHECK(AsSet(policy.ProbeCandidates(2, 2, 3, {}, Rate(1))).size() == 6);
  }
}

TEST_CASE(
    "choose least: the least loaded answered bookie by its fresh figure, "
    "unless its journal is saturated",
    "[placement][probe]") {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options = Probing(4, AdaptiveOptions::ProbePick::kLeast);
    options.adaptive.probe_choose_least = true;
    RackAwarePolicy policy(options, gen);
    ReportStale(policy);
    const bool saturated = seed % 2 == 0;
    const std::vector<BookieId> ids = policy.ProbeCandidates(1, 1, 1, {}, {});
    REQUIRE(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
    policy.OnProbeReport(Id(0), Report(60, 40), kNow);
    policy.OnProbeReport(Id(1), Report(5, saturated ? 100 : 10), kNow);
    policy.OnProbeReport(Id(2), Report(30, 30), kNow);
    policy.OnProbeReport(Id(3), Report(20, 30), kNow);
    // A small slot: rank matching would spread it; least takes b1 (b3 when
    // b1's journal is saturated).
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(1, 1, 1, {}, Rate(seed % 3 == 0 ? 40 : 1));
    REQUIRE(p.ok());
    CHECK(p->ensemble[0] == (saturated ? Id(3) : Id(1)));
  }
}

TEST_CASE(
    "a probed bookie whose fresh report gives a slow add latency is not "
    "chosen, though it writes least",
    "[placement][probe]") {
  for (const double multiple : {16.0, 0.0}) {
    Counts chosen;
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      INFO("multiple " << multiple << ", seed " << seed);
      std::mt19937_64 gen(seed);
      PlacementOptions options = Probing(4, AdaptiveOptions::ProbePick::kLeast);
      options.adaptive.probe_choose_least = true;
      options.adaptive.probe_slow_latency_multiple = multiple;
      // The rule under test alone: b0's 40 ms is also 40 x its own floor.
      options.adaptive.probe_slow_floor_multiple = 0;
      RackAwarePolicy policy(options, gen);
      policy.OnClusterChanged(MakeBookies(20, 2), {});
      for (int i = 0; i < 20; ++i) {
        BookieInfo info = i < 4 ? Report(0, 1) : Report(10, 20);
        info.add_latency_p99_ms = 1;
        policy.OnBookieInfo(Id(i), info, kStale);
      }
      policy.AdvanceTime(kNow);
      const std::vector<BookieId> ids = policy.ProbeCandidates(1, 1, 1, {}, {});
      REQUIRE(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
      // b0's journal slowed down: it writes least, its utilisation is
      // moderate, its adds wait 40 ms (the median reported is 1 ms).
      for (const BookieId& id : ids) {
        BookieInfo info = id == Id(0) ? Report(1, 60) : Report(20, 30);
        info.add_latency_p99_ms = id == Id(0) ? 40 : 1;
        policy.OnProbeReport(id, info, kNow);
      }
      absl::StatusOr<PlacementResult> p =
          policy.NewEnsemble(1, 1, 1, {}, Rate(1));
      REQUIRE(p.ok());
      ++chosen[p->ensemble[0]];
    }
    INFO("multiple " << multiple << ": b0 chosen " << chosen[Id(0)]);
    // Off, b0 is the least loaded answer every time.
    CHECK(chosen[Id(0)] == (multiple > 0 ? 0 : 100));
  }
}

TEST_CASE(
    "a probed bookie whose fresh latency is a multiple of its own floor is "
    "not chosen, though the cluster's median would pass it, and a busy healthy "
    "one still is",
    "[placement][probe]") {
  // 20 bookies: 14 on fast journals (p99 0.5 ms when quiet) and 6 on slow
  // ones (3 ms: b1 and b15..b19), so the median reported is 0.5 ms and 16 x
  // it is 8 ms. b0's journal slowed tenfold since (5 ms, under 8 ms); b1 is
  // healthy but busy (6 ms: twice its floor).
  auto quiet_ms = [](int i) { return i == 1 || i >= 15 ? 3.0 : 0.5; };
  for (const double multiple : {4.0, 0.0}) {
    Counts chosen;
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      INFO("floor multiple " << multiple << ", seed " << seed);
      std::mt19937_64 gen(seed);
      PlacementOptions options = Probing(4, AdaptiveOptions::ProbePick::kLeast);
      options.adaptive.probe_choose_least = true;
      options.adaptive.probe_slow_floor_multiple = multiple;
      RackAwarePolicy policy(options, gen);
      policy.OnClusterChanged(MakeBookies(20, 2), {});
      // Two polls teach the floors.
      for (const absl::Time at : {kStale - absl::Minutes(5), kStale}) {
        for (int i = 0; i < 20; ++i) {
          BookieInfo info = i < 4 ? Report(0, 1) : Report(10, 20);
          info.add_latency_p99_ms = quiet_ms(i);
          policy.OnBookieInfo(Id(i), info, at);
        }
      }
      policy.AdvanceTime(kNow);
      const std::vector<BookieId> ids = policy.ProbeCandidates(1, 1, 1, {}, {});
      REQUIRE(AsSet(ids) == AsSet({Id(0), Id(1), Id(2), Id(3)}));
      for (const BookieId& id : ids) {
        BookieInfo info = Report(20, 30);
        info.add_latency_p99_ms = 0.5;
        if (id == Id(0)) {
          info = Report(1, 75);  // writes least: its journal cannot keep up
          info.add_latency_p99_ms = 5;
        } else if (id == Id(1)) {
          info = Report(8, 80);
          info.add_latency_p99_ms = 6;
        }
        policy.OnProbeReport(id, info, kNow);
      }
      absl::StatusOr<PlacementResult> p =
          policy.NewEnsemble(1, 1, 1, {}, Rate(1));
      REQUIRE(p.ok());
      ++chosen[p->ensemble[0]];
    }
    INFO("floor multiple " << multiple << ": b0 " << chosen[Id(0)] << ", b1 "
                           << chosen[Id(1)]);
    // On: b0 never, the busy b1 (the least loaded of the rest) every time.
    // Off: b0, the least loaded answer, every time.
    CHECK(chosen[Id(0)] == (multiple > 0 ? 0 : 100));
    CHECK(chosen[Id(1)] == (multiple > 0 ? 100 : 0));
  }
}

TEST_CASE(
    "a bookie first heard of while slow has no floor below its latency: the "
    "floor rule cannot tell it, the median rule still may",
    "[placement][probe]") {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    PlacementOptions options = Probing(4, AdaptiveOptions::ProbePick::kLeast);
    RackAwarePolicy policy(options, gen);
    policy.OnClusterChanged(MakeBookies(20, 2), {});
    for (int i = 1; i < 20; ++i) {
      BookieInfo info = i < 4 ? Report(0, 1) : Report(10, 20);
      info.add_latency_p99_ms = 0.5;
      policy.OnBookieInfo(Id(i), info, kStale);
    }
    policy.AdvanceTime(kNow);
    std::vector<BookieId> ids = policy.ProbeCandidates(1, 1, 1, {}, {});
    // b0 never reported: it counts the median load, so it is not among the
    // four least loaded; probe it by hand, as a client answering it would.
    ids.push_back(Id(0));
    for (const BookieId& id : ids) {
      BookieInfo info = Report(20, 30);
      info.add_latency_p99_ms = 0.5;
      if (id == Id(0)) {
        info = Report(1, 75);
        info.add_latency_p99_ms = 5;
      }
      policy.OnProbeReport(id, info, kNow);
    }
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(1, 1, 1, {}, Rate(1));
    REQUIRE(p.ok());
    // 5 ms is its own floor, and under 16 x the median (8 ms).
    CHECK(p->ensemble[0] == Id(0));
  }
}

TEST_CASE(
    "a bookie that did not answer its probe is chosen after those that "
    "answered slow, and only when nothing else is eligible",
    "[placement][probe]") {
  // Four bookies in one rack, all asked. b0 answers healthy, b1 and b2
  // answer with 10 x their floor (slow), b3 does not answer (a suspended
  // process). An E2 ensemble takes b0 and one of the slow ones; an E4 one
  // must take b3 as well.
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 gen(seed);
    RackAwarePolicy policy(Probing(2, AdaptiveOptions::ProbePick::kRule), gen);
    policy.OnClusterChanged(MakeBookies(4, 1), {});
    for (int i = 0; i < 4; ++i) {
      BookieInfo info = Report(1, 10);
      info.add_latency_p99_ms = 0.5;
      policy.OnBookieInfo(Id(i), info, kStale);
    }
    policy.AdvanceTime(kNow);
    const int size = seed % 2 == 0 ? 2 : 4;
    const std::vector<BookieId> ids =
        policy.ProbeCandidates(size, size, size, {}, {});
    REQUIRE(ids.size() == 4);
    for (const BookieId& id : ids) {
      if (id == Id(3)) {
        policy.OnProbeUnanswered(id);
        continue;
      }
      BookieInfo info = Report(1, 10);
      info.add_latency_p99_ms = id == Id(0) ? 0.5 : 5;
      policy.OnProbeReport(id, info, kNow);
    }
    absl::StatusOr<PlacementResult> p =
        policy.NewEnsemble(size, size, size, {}, Rate(1));
    REQUIRE(p.ok());
    const absl::flat_hash_set<BookieId> chosen = AsSet(p->ensemble);
    CHECK(chosen.contains(Id(0)));
    CHECK(chosen.contains(Id(3)) == (size == 4));
    // The next choice has no probes: b3 is as eligible as any.
    absl::StatusOr<PlacementResult> next = policy.NewEnsemble(4, 4, 4, {}, {});
    REQUIRE(next.ok());
    CHECK(AsSet(next->ensemble).size() == 4);
  }
}

}  // namespace
}  // namespace bk::placement
