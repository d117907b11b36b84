#include "tools/sim/simulator.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "catch2/catch.hpp"
#include "placement/topology.h"
#include "tools/sim/cluster.h"
#include "tools/sim/result_json.h"
#include "tools/sim/scenario_yaml.h"

namespace bk::sim {
namespace {

Scenario Load(const std::string& name) {
  absl::StatusOr<Scenario> s =
      ReadScenarioFile(std::string(BK_SCENARIO_DIR) + "/" + name + ".yaml");
  REQUIRE(s.ok());
  return *s;
}

TEST_CASE("the same seed and scenario give byte-identical JSON", "[sim]") {
  const uint64_t seed = 20240917;
  INFO("seed " << seed);
  const Scenario s = Load("small");
  const std::string a = ResultToJson(Simulate(s, seed)).dump();
  const std::string b = ResultToJson(Simulate(s, seed)).dump();
  CHECK(a == b);
  const std::string c = ResultToJson(Simulate(s, seed + 1)).dump();
  CHECK(a != c);
}

TEST_CASE("the JSON has the shape issue 9 gives", "[sim]") {
  const uint64_t seed = 7;
  INFO("seed " << seed);
  const nlohmann::ordered_json j =
      ResultToJson(Simulate(Load("tiny_one_bookie"), seed));
  CHECK(j["seed"] == seed);
  CHECK(j["scenario"]["name"] == "tiny_one_bookie");
  for (const char* policy : {"none", "load", "adaptive"}) {
    INFO(policy);
    const auto& p = j["policies"][policy];
    CHECK(p.size() == 16);
    for (const char* key :
         {"throughput_stddev", "throughput_range", "top10_throughput",
          "disk_throughput_stddev", "disk_throughput_range",
          "disk_top10_throughput", "p50_write_latency", "p99_write_latency",
          "p999_write_latency", "herd_index", "lower_bound_throughput_stddev",
          "gap_closed", "ensemble_changes", "lag_changes", "replace_failures",
          "probes_per_placement"}) {
      CHECK(p.contains(key));
    }
  }
}

TEST_CASE(
    "gap closed is measured against random placement and the "
    "smallest bound, and is null without a random run",
    "[sim]") {
  const uint64_t seed = 31;
  INFO("seed " << seed);
  Scenario s = Load("small");
  s.policies = {placement::Weighting::kNone, placement::Weighting::kAdaptive};
  const SimulationResult r = Simulate(s, seed);
  const double bound = LowerBoundStddev(r);
  CHECK(bound <= r.runs[0].summary.bound_throughput_stddev);
  CHECK(bound <= r.runs[1].summary.bound_throughput_stddev);
  CHECK(GapClosed(r, r.runs[0]) == 0);
  const double none = r.runs[0].summary.throughput_stddev;
  CHECK(GapClosed(r, r.runs[1]) ==
        Approx((none - r.runs[1].summary.throughput_stddev) / (none - bound)));
  const nlohmann::ordered_json j = ResultToJson(r);
  CHECK(j["policies"]["none"]["gap_closed"] == 0);

  s.policies = {placement::Weighting::kAdaptive};
  const SimulationResult alone = Simulate(s, seed);
  CHECK(std::isnan(GapClosed(alone, alone.runs[0])));
  CHECK(ResultToJson(alone)["policies"]["adaptive"]["gap_closed"].is_null());
}

TEST_CASE(
    "a bookie whose device refuses adds is replaced in its ledgers' "
    "ensembles, and is not without an add timeout",
    "[sim]") {
  const uint64_t seed = 41;
  INFO("seed " << seed);
  Scenario s = Load("small");
  // Bookie 3 slowed so far that its backlog hits max_queue_s.
  s.gray_failures = {{3, 200, 200, 1000}};
  s.max_queue_s = 5;
  const PolicyRun changed =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(changed.ensemble_changes > 0);
  s.add_timeout_s = 0;
  const PolicyRun stuck = SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(stuck.ensemble_changes == 0);
  // Replaced, the slowed bookie no longer throttles what it cannot write.
  CHECK(changed.summary.throttled_mib < stuck.summary.throttled_mib);
}

TEST_CASE(
    "with add_lag_timeout_s a bookie lagging its write set is replaced "
    "before the add timeout, at AQ == WQ only",
    "[sim]") {
  const uint64_t seed = 47;
  INFO("seed " << seed);
  Scenario s = Load("small");  // E2/WQ2/AQ2
  // Bookie 3 slowed a hundredfold for 200 s: its backlog grows.
  s.gray_failures = {{3, 200, 200, 100}};
  s.add_timeout_s = 3600;
  const PolicyRun timeout_only =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(timeout_only.lag_changes == 0);
  s.add_lag_timeout_s = 2;
  const PolicyRun lag = SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(lag.lag_changes > 0);
  CHECK(lag.ensemble_changes >= lag.lag_changes);
  CHECK(lag.summary.p99_write_latency < timeout_only.summary.p99_write_latency);
  // At AQ < WQ a slow member holds no add up: nothing to replace.
  s.ledgers.ack_quorum = 1;
  const PolicyRun relaxed =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(relaxed.lag_changes == 0);
}

TEST_CASE(
    "partitioned topics keep the traffic and no ledger exceeds the "
    "partition rate",
    "[sim]") {
  const uint64_t seed = 43;
  INFO("seed " << seed);
  Scenario s = Load("small");
  s.gray_failures.clear();
  const PolicyRun whole = SimulatePolicy(s, placement::Weighting::kNone, seed);
  s.traffic.partition_mib_per_second = 5;
  const PolicyRun split = SimulatePolicy(s, placement::Weighting::kNone, seed);
  // Bursts above 5 MiB/s are cut, so a little traffic goes; the topics'
  // base rates are all kept.
  CHECK(split.offered_mib_per_second <= whole.offered_mib_per_second);
  CHECK(split.offered_mib_per_second > 0.8 * whole.offered_mib_per_second);
  CHECK(split.ledgers_created > whole.ledgers_created);
  // With E = WQ = 2 a member takes the ledger's whole rate: the bound's
  // largest slot, hence the bound itself, is at most that of 5 MiB/s slots.
  CHECK(split.summary.bound_throughput_stddev <
        whole.summary.bound_throughput_stddev);
}

TEST_CASE(
    "the clairvoyant oracle places every ledger and spreads better "
    "than random",
    "[sim]") {
  const uint64_t seed = 47;
  INFO("seed " << seed);
  Scenario s = Load("small");
  const PolicyRun none = SimulatePolicy(s, placement::Weighting::kNone, seed);
  s.clients.clairvoyant = true;
  const PolicyRun oracle =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(oracle.placement_failures == 0);
  CHECK(oracle.ledgers_created == none.ledgers_created);
  // Same traffic: the oracle only chooses where it goes.
  CHECK(oracle.offered_mib_per_second ==
        Approx(none.offered_mib_per_second).epsilon(1e-9));
  INFO("stddev: none " << none.summary.throughput_stddev << ", clairvoyant "
                       << oracle.summary.throughput_stddev);
  CHECK(oracle.summary.throughput_stddev <
        0.8 * none.summary.throughput_stddev);
}

TEST_CASE(
    "the greedy oracle places every ledger and balances identical bookies "
    "to within rounding, where the adaptive rule does not",
    "[sim]") {
  const uint64_t seed = 61;
  INFO("seed " << seed);
  Scenario s = Load("tiny_identical");
  const PolicyRun none = SimulatePolicy(s, placement::Weighting::kNone, seed);
  s.clients.greedy = true;
  const PolicyRun greedy =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(greedy.placement_failures == 0);
  CHECK(greedy.ledgers_created == none.ledgers_created);
  CHECK(greedy.offered_mib_per_second ==
        Approx(none.offered_mib_per_second).epsilon(1e-9));
  // 240 ledgers of (nearly) equal rate, E = WQ = 3 over 12 bookies: each
  // new ledger goes to the three least loaded, so no bookie is ever more
  // than about one ledger's rate (0.5 MiB/s) from the others.
  const double per_bookie =
      none.offered_mib_per_second * s.ledgers.write_quorum / s.BookieCount();
  INFO("per bookie " << per_bookie << " MiB/s; stddev: none "
                     << none.summary.throughput_stddev << ", greedy "
                     << greedy.summary.throughput_stddev);
  CHECK(greedy.summary.throughput_stddev < 0.02 * per_bookie);
  CHECK(greedy.summary.throughput_range < 1.0);
  CHECK(greedy.summary.throughput_stddev <
        0.1 * none.summary.throughput_stddev);
}

TEST_CASE(
    "exact polls change nothing for random placement, and the adaptive "
    "clients still place every ledger",
    "[sim]") {
  const uint64_t seed = 67;
  INFO("seed " << seed);
  Scenario s = Load("small");
  const PolicyRun none = SimulatePolicy(s, placement::Weighting::kNone, seed);
  s.clients.exact_polls = true;
  const PolicyRun none_exact =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(none_exact.summary.throughput_stddev == none.summary.throughput_stddev);
  const PolicyRun exact =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(exact.placement_failures == 0);
  CHECK(exact.ledgers_created == none.ledgers_created);
}

TEST_CASE(
    "shared placements change nothing for random placement, and the "
    "adaptive clients told of each other's ledgers still place them all",
    "[sim]") {
  const uint64_t seed = 53;
  INFO("seed " << seed);
  Scenario s = Load("small");
  const PolicyRun none = SimulatePolicy(s, placement::Weighting::kNone, seed);
  s.clients.shared_placements = true;
  const PolicyRun none_shared =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(none_shared.summary.throughput_stddev ==
        none.summary.throughput_stddev);
  CHECK(none_shared.ledgers_created == none.ledgers_created);
  const PolicyRun shared =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(shared.placement_failures == 0);
  CHECK(shared.ledgers_created == none.ledgers_created);
}

TEST_CASE(
    "adaptive clients share their new ledgers as the client's feed does: on "
    "1 s polls by default, not on slow polls, and not when turned off",
    "[sim]") {
  const uint64_t seed = 61;
  INFO("seed " << seed);
  Scenario s = Load("small");
  const auto stddev = [&](const Scenario& sc) {
    return SimulatePolicy(sc, placement::Weighting::kAdaptive, seed)
        .summary.throughput_stddev;
  };
  // Slow polls: the default shares nothing, so it places exactly as a
  // client with sharing off; forcing it (the reference run) changes that.
  s.clients.report_interval_s = 30;
  Scenario slow_off = s;
  slow_off.placement.adaptive.share_new_ledgers = false;
  CHECK(stddev(s) == stddev(slow_off));
  Scenario slow_forced = s;
  slow_forced.clients.shared_placements = true;
  CHECK(stddev(slow_forced) != stddev(s));
  // 1 s polls: the default shares, as forcing it does; turned off, not.
  s.clients.report_interval_s = 1;
  Scenario fresh_forced = s;
  fresh_forced.clients.shared_placements = true;
  Scenario fresh_off = s;
  fresh_off.placement.adaptive.share_new_ledgers = false;
  CHECK(stddev(s) == stddev(fresh_forced));
  CHECK(stddev(s) != stddev(fresh_off));
}

TEST_CASE(
    "probe on placement: random placement sends no probes and places as "
    "before, adaptive sends D per slot and places every ledger",
    "[sim]") {
  const uint64_t seed = 59;
  INFO("seed " << seed);
  Scenario s = Load("small");
  const PolicyRun none = SimulatePolicy(s, placement::Weighting::kNone, seed);
  const PolicyRun plain =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(plain.probes == 0);
  s.placement.adaptive.probe_candidates = 2;
  s.placement.adaptive.probe_pick =
      placement::AdaptiveOptions::ProbePick::kRule;
  s.placement.adaptive.probe_choose_least = true;
  const PolicyRun none_probing =
      SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(none_probing.probes == 0);
  CHECK(none_probing.summary.throughput_stddev ==
        none.summary.throughput_stddev);
  const PolicyRun probing =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(probing.placement_failures == 0);
  CHECK(probing.ledgers_created == none.ledgers_created);
  // Every placement probes 2 x E bookies, every replacement 2 (the small
  // scenario's pool is larger than either).
  CHECK(probing.placement_calls == probing.ledgers_created +
                                       probing.ensemble_changes +
                                       probing.replace_failures);
  CHECK(probing.probes ==
        2 * s.ledgers.ensemble_size * probing.ledgers_created +
            2 * (probing.ensemble_changes + probing.replace_failures));
  // Deterministic for the seed.
  const PolicyRun again =
      SimulatePolicy(s, placement::Weighting::kAdaptive, seed);
  CHECK(again.summary.throughput_stddev == probing.summary.throughput_stddev);
  CHECK(again.probes == probing.probes);
}

TEST_CASE("with one bookie all load lands on it", "[sim]") {
  const uint64_t seed = 11;
  INFO("seed " << seed);
  const SimulationResult r = Simulate(Load("tiny_one_bookie"), seed);
  for (const PolicyRun& run : r.runs) {
    INFO(placement::WeightingName(run.weighting));
    CHECK(run.placement_failures == 0);
    CHECK(run.ledgers_created > 0);
    CHECK(run.summary.throughput_stddev == 0);
    CHECK(run.summary.throughput_range == 0);
    // The bookie writes everything the clients offer: the mean of its
    // per-interval throughput equals the mean offered rate (1%: ticks at
    // interval edges).
    double mean = 0;
    for (const IntervalPoint& p : run.summary.series) {
      mean += p.top10_throughput;
    }
    mean /= static_cast<double>(run.summary.series.size());
    CHECK(mean == Approx(run.offered_mib_per_second).epsilon(0.01));
    CHECK(run.summary.throttled_mib == 0);
  }
}

TEST_CASE("identical bookies share the load evenly", "[sim]") {
  const uint64_t seed = 5;
  INFO("seed " << seed);
  const Scenario s = Load("tiny_identical");
  const SimulationResult r = Simulate(s, seed);
  for (const PolicyRun& run : r.runs) {
    INFO(placement::WeightingName(run.weighting));
    // Per bookie: offered x WQ / bookies. 240 ledgers of equal rate over 12
    // bookies, 3 each: ~60 per bookie, binomial spread ~13%; the tolerance
    // is on the peak over 13 intervals: 25% (disk weighting follows the
    // bookies' free space, which differs: 50%).
    const double per_bookie =
        run.offered_mib_per_second * s.ledgers.write_quorum / s.BookieCount();
    const double tolerance =
        run.weighting == placement::Weighting::kDisk ? 0.5 : 0.25;
    CHECK(run.summary.throughput_stddev < tolerance * per_bookie);
    CHECK(run.placement_failures == 0);
    // No herding where nothing differs between bookies.
    CHECK(run.summary.mean_herd == Approx(1).margin(0.1));
  }
}

TEST_CASE("a multi-region cluster places every ledger under the region rule",
          "[sim]") {
  const uint64_t seed = 21;
  INFO("seed " << seed);
  const Scenario s = Load("tiny_regions");
  REQUIRE(s.placement.region.enabled);
  const Cluster cluster = BuildCluster(s, seed);
  absl::flat_hash_map<std::string, int> per_region;
  for (const SimBookie& b : cluster.bookies) {
    ++per_region[placement::RegionOf(b.node.network_location)];
  }
  CHECK(per_region.size() == 3);
  for (const auto& [region, count] : per_region) CHECK(count == 4);
  const SimulationResult r = Simulate(s, seed);
  for (const PolicyRun& run : r.runs) {
    INFO(placement::WeightingName(run.weighting));
    CHECK(run.ledgers_created > 0);
    CHECK(run.placement_failures == 0);
    // One replica per region of four identical bookies: as even as
    // tiny_identical (same tolerances).
    const double per_bookie =
        run.offered_mib_per_second * s.ledgers.write_quorum / s.BookieCount();
    const double tolerance =
        run.weighting == placement::Weighting::kDisk ? 0.5 : 0.25;
    CHECK(run.summary.throughput_stddev < tolerance * per_bookie);
  }
}

TEST_CASE("a gray failure raises the tail of random placement", "[sim]") {
  const uint64_t seed = 3;
  INFO("seed " << seed);
  Scenario s = Load("small");
  s.policies = {placement::Weighting::kNone};
  const PolicyRun healthy = [&] {
    Scenario h = s;
    h.gray_failures.clear();
    return SimulatePolicy(h, placement::Weighting::kNone, seed);
  }();
  const PolicyRun gray = SimulatePolicy(s, placement::Weighting::kNone, seed);
  CHECK(gray.summary.p999_write_latency > healthy.summary.p999_write_latency);
}

}  // namespace
}  // namespace bk::sim
