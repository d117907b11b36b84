#include "tools/sim/targets.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/sim/result_json.h"

namespace bk::sim {
namespace {

using nlohmann::ordered_json;
using placement::Weighting;

struct Variant {
  std::string name;
  bool partitioned;
  std::vector<Weighting> policies;
  std::function<void(Scenario&)> apply;
};

void SetClients(Scenario& s, int clients) {
  const int64_t topics =
      static_cast<int64_t>(s.clients.count) * s.clients.topics_per_client;
  s.clients.count = clients;
  s.clients.topics_per_client = static_cast<int>(std::max<int64_t>(
      1, std::llround(static_cast<double>(topics) / clients)));
}

std::vector<Variant> Variants(bool with_partitioned, double lag_s) {
  const Weighting kNone = Weighting::kNone;
  const Weighting kLoad = Weighting::kLoad;
  const Weighting kAdaptive = Weighting::kAdaptive;
  auto herd = [](double report_s, int clients) {
    return [report_s, clients](Scenario& s) {
      s.clients.report_interval_s = report_s;
      SetClients(s, clients);
    };
  };
  std::vector<Variant> v = {
      {"base", false, {kNone, kLoad, kAdaptive}, [](Scenario&) {}},
      {"fresh",
       false,
       {kAdaptive},
       [](Scenario& s) { s.clients.report_interval_s = 1; }},
      // 1 s polls without the placement feed: what sharing new ledgers
      // adds to the target's run ("fresh" shares them by default).
      {"fresh_unshared",
       false,
       {kAdaptive},
       [](Scenario& s) {
         s.clients.report_interval_s = 1;
         s.placement.adaptive.share_new_ledgers = false;
       }},
      {"blind",
       false,
       {kAdaptive},
       [](Scenario& s) { s.clients.rate_hints = false; }},
      // This project's client: a lagging bookie is replaced after lag_s
      // (addEntryLagTimeoutMs), not only at the add timeout. The tail
      // targets with gray failures are read here; "base" keeps the
      // scenario's client (bp65.yaml: BookKeeper's) for BP-65's direction.
      {"lag",
       false,
       {kLoad, kAdaptive},
       [lag_s](Scenario& s) { s.add_lag_timeout_s = lag_s; }},
      {"no_gray",
       false,
       {kNone, kAdaptive},
       [](Scenario& s) { s.gray_failures.clear(); }},
      {"perfect",
       false,
       {kAdaptive},
       [](Scenario& s) { s.clients.perfect_reports = true; }},
      {"clairvoyant",
       false,
       {kAdaptive},
       [](Scenario& s) { s.clients.clairvoyant = true; }},
      {"greedy",
       false,
       {kAdaptive},
       [](Scenario& s) { s.clients.greedy = true; }},
      {"herd_60s_20c", false, {kAdaptive}, herd(60, 20)},
      {"herd_30s_50c", false, {kAdaptive}, herd(30, 50)},
      {"herd_60s_50c", false, {kAdaptive}, herd(60, 50)},
  };
  if (with_partitioned) {
    v.push_back({"partitioned", true, {kNone, kAdaptive}, [](Scenario&) {}});
  }
  return v;
}

struct Job {
  uint64_t seed;
  const Variant* variant;
  Weighting policy;
  Scenario scenario;
};

const PolicySummary* Summary(const TargetsResult& r, uint64_t seed,
                             const std::string& variant, Weighting w) {
  const PolicyRun* run = FindRun(r, seed, variant, w);
  return run == nullptr ? nullptr : &run->summary;
}

// The smallest lower bound of the seed's runs on one scenario's traffic.
double SeedBound(const TargetsResult& r, uint64_t seed, bool partitioned) {
  double bound = std::numeric_limits<double>::infinity();
  for (const TargetRun& t : r.runs) {
    if (t.seed != seed) continue;
    const bool same_traffic =
        partitioned ? t.variant == "partitioned"
                    : (t.variant == "base" || t.variant == "lag" ||
                       t.variant == "fresh" || t.variant == "fresh_unshared" ||
                       t.variant == "blind" || t.variant == "perfect" ||
                       t.variant == "clairvoyant" || t.variant == "greedy");
    if (same_traffic) {
      bound = std::min(bound, t.run.summary.bound_throughput_stddev);
    }
  }
  return bound;
}

// Gap closed by `variant`'s adaptive run against the base run's random one.
double Gap(const TargetsResult& r, uint64_t seed, const std::string& variant,
           Weighting w = Weighting::kAdaptive) {
  const PolicySummary* none = Summary(r, seed, "base", Weighting::kNone);
  const PolicySummary* run = Summary(r, seed, variant, w);
  if (none == nullptr || run == nullptr) return std::nan("");
  const double gap = none->throughput_stddev - SeedBound(r, seed, false);
  if (!(gap > 0)) return std::nan("");
  return (none->throughput_stddev - run->throughput_stddev) / gap;
}

std::string Pct(double share) {
  return std::isnan(share) ? "-" : absl::StrFormat("%.0f %%", 100 * share);
}

// "met on 7 of 10 (misses: 3, 5, 9)".
struct Tally {
  std::string name;
  std::vector<uint64_t> misses;
  int met = 0;
  void Add(uint64_t seed, bool ok) {
    if (ok) {
      ++met;
    } else {
      misses.push_back(seed);
    }
  }
  // `need`: how many seeds of `seeds` must meet it, and in words.
  std::string Line(size_t seeds, size_t need, const std::string& words) const {
    std::string s = absl::StrFormat(
        "- %s: met on %d of %d seeds (needs %s: %s)", name, met, seeds, words,
        static_cast<size_t>(met) >= need ? "held" : "NOT held");
    if (!misses.empty()) {
      absl::StrAppend(&s, "; misses: ", absl::StrJoin(misses, ", "));
    }
    return s + "\n";
  }
};

}  // namespace

const PolicyRun* FindRun(const TargetsResult& r, uint64_t seed,
                         const std::string& variant, Weighting policy) {
  for (const TargetRun& t : r.runs) {
    if (t.seed == seed && t.variant == variant && t.run.weighting == policy) {
      return &t.run;
    }
  }
  return nullptr;
}

absl::StatusOr<TargetsResult> MeasureTargets(const TargetsOptions& options) {
  if (options.threads < 1 || options.threads > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be in [1, 64], got ", options.threads));
  }
  if (options.seeds.empty()) {
    return absl::InvalidArgumentError("no seeds");
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Variant> variants =
      Variants(options.partitioned.has_value(), options.add_lag_timeout_s);
  std::vector<Job> jobs;
  for (uint64_t seed : options.seeds) {
    for (const Variant& v : variants) {
      Scenario s = v.partitioned ? *options.partitioned : options.base;
      v.apply(s);
      if (absl::Status st = ValidateScenario(s); !st.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("variant ", v.name, ": ", st.message()));
      }
      for (Weighting w : v.policies) jobs.push_back({seed, &v, w, s});
    }
  }
  TargetsResult result;
  result.runs.resize(jobs.size());
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      result.runs[j] = {
          jobs[j].seed, jobs[j].variant->name,
          SimulatePolicy(jobs[j].scenario, jobs[j].policy, jobs[j].seed)};
    }
  };
  std::vector<std::thread> threads;
  const size_t n = std::min<size_t>(options.threads, jobs.size());
  for (size_t t = 0; t < n; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

std::string TargetsToMarkdown(const TargetsOptions& options,
                              const TargetsResult& r) {
  const Weighting kNone = Weighting::kNone;
  const Weighting kLoad = Weighting::kLoad;
  const Weighting kAdaptive = Weighting::kAdaptive;
  const size_t seeds = options.seeds.size();
  Tally gap30{"gap closed >= 50 % (30 s reports, hints)"};
  Tally gap1{"gap closed >= 90 % (1 s reports, hints)"};
  Tally gap_blind{"gap closed >= 25 % (no hints)"};
  Tally below_load{"adaptive stddev <= load's"};
  Tally tail_clean{"p99 < 1 s and >= 10 x below none's (no gray failures)"};
  Tally tail_gray{
      "p99 <= 3 s (gray failures, ensemble change, this client's lag rule)"};
  Tally tail_vs_load{"p99 below load's (gray failures, this client)"};
  Tally herd{"herd_index <= 1.3 (30/60 s reports, 20/50 clients)"};
  Tally part{"partitioned: stddev <= 0.5 x random's"};
  Tally dir_sd{"BP-65 direction: load's per-disk stddev >= 10 % below none's"};
  Tally dir_range{"BP-65 direction: load's per-disk range below none's"};
  Tally dir_p99{"BP-65 direction: none's p99 >= 10 s, load's < 1 s"};

  std::string spread =
      "### Spread: peak per-bookie journal MB/s stddev, gap closed\n\n"
      "| seed | none | load | adaptive | bound | load gap | adaptive gap | "
      "1 s gap | 1 s, unshared gap | perfect-info gap | clairvoyant gap | "
      "greedy gap | no-hints gap |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::string tail =
      "### Tail: p99 add latency, s\n\n"
      "| seed | none | load | adaptive | load, lag rule | adaptive, lag rule | "
      "none, no gray | adaptive, no gray | ensemble changes (adaptive) | "
      "lag rule: changes, of them for lag (adaptive) |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  std::string herding =
      "### Herding: adaptive herd_index\n\n"
      "| seed | 30 s, 20 clients | 60 s, 20 | 30 s, 50 | 60 s, 50 |\n"
      "|---|---|---|---|---|\n";
  std::string direction =
      "### BP-65's direction: load vs none\n\n"
      "Peak journal write MB/s across journal disks, as BP-65 measured (a "
      "disk shared by three bookies carries their sum); per bookie beside "
      "it.\n\n"
      "| seed | disk stddev change | disk range change | p99 none -> load, s "
      "| bookie stddev change | bookie range change |\n"
      "|---|---|---|---|---|---|\n";
  std::string partitioned =
      "### bp65-partitioned: peak stddev\n\n"
      "| seed | bound | none | adaptive | adaptive / none |\n"
      "|---|---|---|---|---|\n";

  for (uint64_t seed : options.seeds) {
    const PolicySummary* none = Summary(r, seed, "base", kNone);
    const PolicySummary* load = Summary(r, seed, "base", kLoad);
    const PolicySummary* ad = Summary(r, seed, "base", kAdaptive);
    if (none == nullptr || load == nullptr || ad == nullptr) continue;
    const double g30 = Gap(r, seed, "base");
    const double g1 = Gap(r, seed, "fresh");
    const double gb = Gap(r, seed, "blind");
    absl::StrAppendFormat(
        &spread,
        "| %d | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s "
        "| %s |\n",
        seed, none->throughput_stddev, load->throughput_stddev,
        ad->throughput_stddev, SeedBound(r, seed, false),
        Pct(Gap(r, seed, "base", kLoad)), Pct(g30), Pct(g1),
        Pct(Gap(r, seed, "fresh_unshared")), Pct(Gap(r, seed, "perfect")),
        Pct(Gap(r, seed, "clairvoyant")), Pct(Gap(r, seed, "greedy")), Pct(gb));
    gap30.Add(seed, g30 >= 0.5);
    gap1.Add(seed, g1 >= 0.9);
    gap_blind.Add(seed, gb >= 0.25);
    below_load.Add(seed, ad->throughput_stddev <= load->throughput_stddev);

    const PolicySummary* none_clean = Summary(r, seed, "no_gray", kNone);
    const PolicySummary* ad_clean = Summary(r, seed, "no_gray", kAdaptive);
    const PolicyRun* ad_run = FindRun(r, seed, "base", kAdaptive);
    const PolicySummary* load_lag = Summary(r, seed, "lag", kLoad);
    const PolicyRun* ad_lag = FindRun(r, seed, "lag", kAdaptive);
    absl::StrAppendFormat(
        &tail,
        "| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d, %d "
        "|\n",
        seed, none->p99_write_latency, load->p99_write_latency,
        ad->p99_write_latency, load_lag->p99_write_latency,
        ad_lag->summary.p99_write_latency, none_clean->p99_write_latency,
        ad_clean->p99_write_latency, ad_run->ensemble_changes,
        ad_lag->ensemble_changes, ad_lag->lag_changes);
    tail_clean.Add(seed, ad_clean->p99_write_latency < 1 &&
                             ad_clean->p99_write_latency * 10 <=
                                 none_clean->p99_write_latency);
    tail_gray.Add(seed, ad_lag->summary.p99_write_latency <= 3);
    tail_vs_load.Add(
        seed, ad_lag->summary.p99_write_latency < load_lag->p99_write_latency);

    double worst = ad->herd_index;
    std::string row = absl::StrFormat("| %d | %.2f |", seed, ad->herd_index);
    for (const char* v : {"herd_60s_20c", "herd_30s_50c", "herd_60s_50c"}) {
      const double h = Summary(r, seed, v, kAdaptive)->herd_index;
      worst = std::max(worst, h);
      absl::StrAppendFormat(&row, " %.2f |", h);
    }
    herding += row + "\n";
    herd.Add(seed, worst <= 1.3);

    const double sd_change =
        load->disk_throughput_stddev / none->disk_throughput_stddev - 1;
    const double range_change =
        load->disk_throughput_range / none->disk_throughput_range - 1;
    absl::StrAppendFormat(
        &direction,
        "| %d | %+.0f %% | %+.0f %% | %.2f -> %.2f | %+.0f %% | "
        "%+.0f %% |\n",
        seed, 100 * sd_change, 100 * range_change, none->p99_write_latency,
        load->p99_write_latency,
        100 * (load->throughput_stddev / none->throughput_stddev - 1),
        100 * (load->throughput_range / none->throughput_range - 1));
    dir_sd.Add(seed, sd_change <= -0.10);
    dir_range.Add(seed, range_change < 0);
    dir_p99.Add(seed,
                none->p99_write_latency >= 10 && load->p99_write_latency < 1);

    if (options.partitioned) {
      const PolicySummary* pn = Summary(r, seed, "partitioned", kNone);
      const PolicySummary* pa = Summary(r, seed, "partitioned", kAdaptive);
      const double ratio = pa->throughput_stddev / pn->throughput_stddev;
      absl::StrAppendFormat(&partitioned,
                            "| %d | %.2f | %.2f | %.2f | %.2f |\n", seed,
                            SeedBound(r, seed, true), pn->throughput_stddev,
                            pa->throughput_stddev, ratio);
      part.Add(seed, ratio <= 0.5);
    }
  }
  std::string md = absl::StrFormat(
      "## Placement targets: %s, seeds %s (%d runs, %.0f s wall time)\n\n",
      options.base.name, absl::StrJoin(options.seeds, ","), r.runs.size(),
      r.wall_seconds);
  const placement::AdaptiveOptions& a = options.base.placement.adaptive;
  if (a.probe_candidates > 0) {
    md += absl::StrFormat(
        "Probe on placement: %d candidates per slot, picked \"%s\"%s.\n\n",
        a.probe_candidates, placement::ProbePickName(a.probe_pick),
        a.probe_choose_least ? ", the least loaded answer chosen" : "");
  }
  const size_t every = seeds;
  const size_t eight_in_ten = (seeds * 8 + 9) / 10;
  const size_t majority = seeds / 2 + 1;
  md += gap30.Line(seeds, every, "every seed") +
        gap1.Line(seeds, every, "every seed") +
        gap_blind.Line(seeds, every, "every seed") +
        below_load.Line(seeds, every, "every seed") +
        tail_clean.Line(seeds, every, "every seed") +
        tail_gray.Line(seeds, eight_in_ten, "at least 8 in 10") +
        tail_vs_load.Line(seeds, every, "every seed") +
        herd.Line(seeds, every, "every seed");
  if (options.partitioned) md += part.Line(seeds, every, "every seed");
  md += dir_sd.Line(seeds, majority, "a majority") +
        dir_range.Line(seeds, majority, "a majority") +
        dir_p99.Line(seeds, majority, "a majority");
  md += "\n" + spread + "\n" + tail + "\n" + herding + "\n" + direction;
  if (options.partitioned) md += "\n" + partitioned;
  return md;
}

ordered_json TargetsToJson(const TargetsOptions& options,
                           const TargetsResult& r) {
  ordered_json j;
  j["scenario"] = ScenarioToJson(options.base);
  if (options.partitioned) {
    j["partitioned_scenario"] = ScenarioToJson(*options.partitioned);
  }
  j["seeds"] = options.seeds;
  j["runs"] = ordered_json::array();
  for (const TargetRun& t : r.runs) {
    SimulationResult one;
    one.runs.push_back(t.run);
    const std::string name(placement::WeightingName(t.run.weighting));
    ordered_json run = ResultToJson(one)["policies"][name];
    run["gap_closed"] =
        std::isnan(Gap(r, t.seed, t.variant, t.run.weighting))
            ? ordered_json(nullptr)
            : ordered_json(Gap(r, t.seed, t.variant, t.run.weighting));
    if (t.variant == "partitioned") run["gap_closed"] = nullptr;
    j["runs"].push_back({{"seed", t.seed},
                         {"variant", t.variant},
                         {"policy", name},
                         {"summary", std::move(run)}});
  }
  j["wall_seconds"] = r.wall_seconds;
  return j;
}

}  // namespace bk::sim
