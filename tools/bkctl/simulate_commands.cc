// bkctl placement simulate | sweep: the placement-quality simulator
// (tools/sim/) on a scenario file.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/bkctl/command.h"
#include "tools/bkctl/flags.h"
#include "tools/sim/report.h"
#include "tools/sim/result_json.h"
#include "tools/sim/scenario_yaml.h"
#include "tools/sim/simulator.h"
#include "tools/sim/sweep.h"
#include "tools/sim/targets.h"

namespace bk::bkctl {
namespace {

int Fail(std::ostream& err, int code, const absl::Status& status) {
  err << "bkctl placement: " << status.message() << "\n";
  return code;
}

// Probe on placement (placement.adaptive.probe_*), for simulate and targets.
void AddProbeFlags(std::vector<FlagSpec>* flags) {
  flags->push_back({"probe-candidates", false,
                    "probe on placement: bookies asked for a fresh report "
                    "per slot (placement.adaptive.probe_candidates)"});
  flags->push_back({"probe-pick", false,
                    "which bookies to probe: least, random, mixed or rule "
                    "(placement.adaptive.probe_pick)"});
  flags->push_back({"probe-choose-least", false,
                    "among the bookies that answered, the least loaded "
                    "(placement.adaptive.probe_choose_least)",
                    true});
}

absl::Status ApplyProbeFlags(const ParsedFlags& flags, sim::Scenario* s) {
  placement::AdaptiveOptions& a = s->placement.adaptive;
  if (flags.Has("probe-candidates")) {
    absl::StatusOr<int64_t> n = flags.GetInt("probe-candidates", 0, 1000);
    if (!n.ok()) return n.status();
    a.probe_candidates = static_cast<int>(*n);
  }
  if (flags.Has("probe-pick")) {
    absl::StatusOr<placement::AdaptiveOptions::ProbePick> pick =
        placement::ParseProbePick(flags.Get("probe-pick"));
    if (!pick.ok()) return pick.status();
    a.probe_pick = *pick;
  }
  if (flags.GetBool("probe-choose-least")) a.probe_choose_least = true;
  return absl::OkStatus();
}

const std::vector<FlagSpec>& SimulateFlags() {
  static auto* const kFlags = new std::vector<FlagSpec>{
      {"scenario", true, "scenario file (YAML, see tools/sim/README.md)"},
      {"seed", true, "random seed"},
      {"json", false, "print the JSON result (default: a table)", true},
      {"report", false, "write report.md and PNG charts into this directory"},
      {"gnuplot", false, "gnuplot program for --report (default: gnuplot)"},
      {"policies", false,
       "comma-separated policies to run instead of the scenario's "
       "(none,disk,load,adaptive)"},
      {"no-gray-failures", false,
       "leave out the scenario's gray failures (a control run)", true},
      {"no-hints", false,
       "do not pass ledgers' rates to the policy (clients.rate_hints off)",
       true},
      {"report-interval", false,
       "seconds between report polls, instead of the scenario's"},
      {"clients", false,
       "client count instead of the scenario's (total topics held)"},
      {"perfect-reports", false,
       "reference run: exact, instant reports at every placement", true},
      {"clairvoyant", false,
       "reference run: new ensembles by a clairvoyant place-once oracle", true},
      {"greedy", false,
       "reference run: new ensembles on the least loaded bookies by their "
       "offered rate now, across all clients",
       true},
      {"exact-polls", false,
       "reference run: polls return each bookie's offered rate at the poll "
       "instead of its monitor's window",
       true},
      {"shared-placements", false,
       "reference run: every client learns other clients' new ledgers at once",
       true},
      {"add-lag-timeout", false,
       "seconds: this client's addEntryLagTimeoutMs (add_lag_timeout_s; 0 "
       "off, as BookKeeper's client)"},
  };
  static const bool kProbe = (AddProbeFlags(kFlags), true);
  static_cast<void>(kProbe);
  return *kFlags;
}

const std::vector<FlagSpec>& TargetsFlags() {
  static auto* const kFlags = new std::vector<FlagSpec>{
      {"scenario", true, "scenario file (bench/scenarios/bp65.yaml)"},
      {"partitioned", false,
       "second scenario for the partitioned target "
       "(bench/scenarios/bp65-partitioned.yaml)"},
      {"seeds", false, "first-last seeds (default 1-10)"},
      {"threads", false, "runs simulated at once (default 2)"},
      {"json", false, "print JSON (default: Markdown tables)", true},
      {"add-lag-timeout", false,
       "seconds: addEntryLagTimeoutMs of the \"lag\" runs (default 3, the "
       "client's default)"},
  };
  static const bool kProbe = (AddProbeFlags(kFlags), true);
  static_cast<void>(kProbe);
  return *kFlags;
}

const std::vector<FlagSpec>& SweepFlags() {
  static auto* const kFlags = new std::vector<FlagSpec>{
      {"scenario", true, "base scenario file (YAML)"},
      {"seed", true, "random seed"},
      {"report-intervals", false,
       "report poll intervals in seconds (default 1,5,15,30,60)"},
      {"clients", false, "client counts (default 1,5,10,20,50)"},
      {"policies", false,
       "comma-separated policies to run instead of the scenario's"},
      {"json", false, "print JSON (default: Markdown tables)", true},
  };
  return *kFlags;
}

std::string Table(const sim::SimulationResult& r) {
  std::string out =
      absl::StrFormat("%-9s %10s %6s %10s %10s %9s %9s %9s %6s %7s %7s\n",
                      "policy", "stddev", "gap%", "range", "top10", "p50_s",
                      "p99_s", "p999_s", "herd", "changes", "wall_s");
  for (const sim::PolicyRun& run : r.runs) {
    const sim::PolicySummary& s = run.summary;
    const absl::string_view name = placement::WeightingName(run.weighting);
    const double gap = sim::GapClosed(r, run);
    absl::StrAppendFormat(
        &out,
        "%-9s %10.2f %6s %10.2f %10.2f %9.4f %9.4f %9.4f %6.2f %7d %7.1f\n",
        std::string(name.data(), name.size()), s.throughput_stddev,
        std::isnan(gap) ? std::string("-") : absl::StrFormat("%.0f", 100 * gap),
        s.throughput_range, s.top10_throughput, s.p50_write_latency,
        s.p99_write_latency, s.p999_write_latency, s.herd_index,
        run.ensemble_changes, run.wall_seconds);
  }
  for (const sim::PolicyRun& run : r.runs) {
    const sim::PolicySummary& s = run.summary;
    const absl::string_view name = placement::WeightingName(run.weighting);
    absl::StrAppendFormat(&out,
                          "%-9s mean stddev %.2f; ideal balancer: peak %.2f, "
                          "mean %.2f; lower bound: peak %.2f (this run)\n",
                          std::string(name.data(), name.size()),
                          s.mean_throughput_stddev, s.ideal_throughput_stddev,
                          s.mean_ideal_stddev, s.bound_throughput_stddev);
  }
  absl::StrAppendFormat(&out, "lower bound over the runs: %.2f\n",
                        sim::LowerBoundStddev(r));
  absl::StrAppendFormat(&out,
                        "(MB/s = MiB/s; peaks over %g s intervals; "
                        "total wall time %.1f s)\n",
                        r.scenario.metrics_interval_s, r.wall_seconds);
  return out;
}

// Replaces the scenario's policy list with --policies, when given.
absl::Status OverridePolicies(const ParsedFlags& flags, sim::Scenario* s) {
  if (!flags.Has("policies")) return absl::OkStatus();
  absl::StatusOr<std::vector<std::string>> names = flags.GetList("policies");
  if (!names.ok()) return names.status();
  if (names->empty()) {
    return absl::InvalidArgumentError("--policies: empty list");
  }
  s->policies.clear();
  for (const std::string& name : *names) {
    absl::StatusOr<placement::Weighting> w = placement::ParseWeighting(name);
    if (!w.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--policies: unknown policy \"", name,
                       "\" (none, disk, load, adaptive)"));
    }
    s->policies.push_back(*w);
  }
  return absl::OkStatus();
}

// --add-lag-timeout, seconds in [0, 3600].
absl::StatusOr<double> LagTimeout(const ParsedFlags& flags) {
  double v = 0;
  if (!absl::SimpleAtod(flags.Get("add-lag-timeout"), &v) || !(v >= 0) ||
      v > 3600) {
    return absl::InvalidArgumentError(
        absl::StrCat("--add-lag-timeout: \"", flags.Get("add-lag-timeout"),
                     "\" is not seconds in [0, 3600]"));
  }
  return v;
}

// Applies --no-gray-failures, --no-hints, --report-interval, --clients,
// --perfect-reports, --clairvoyant, --greedy, --exact-polls,
// --shared-placements, --add-lag-timeout, --probe-candidates
// and --probe-pick; the result is
// validated again.
absl::Status OverrideScenario(const ParsedFlags& flags, sim::Scenario* s) {
  if (flags.GetBool("no-gray-failures")) s->gray_failures.clear();
  if (flags.GetBool("no-hints")) s->clients.rate_hints = false;
  if (flags.GetBool("perfect-reports")) s->clients.perfect_reports = true;
  if (flags.GetBool("clairvoyant")) s->clients.clairvoyant = true;
  if (flags.GetBool("greedy")) s->clients.greedy = true;
  if (flags.GetBool("exact-polls")) s->clients.exact_polls = true;
  if (flags.GetBool("shared-placements")) s->clients.shared_placements = true;
  if (absl::Status st = ApplyProbeFlags(flags, s); !st.ok()) return st;
  if (flags.Has("add-lag-timeout")) {
    absl::StatusOr<double> v = LagTimeout(flags);
    if (!v.ok()) return v.status();
    s->add_lag_timeout_s = *v;
  }
  if (flags.Has("report-interval")) {
    double v = 0;
    if (!absl::SimpleAtod(flags.Get("report-interval"), &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--report-interval: \"", flags.Get("report-interval"),
                       "\" is not a number"));
    }
    s->clients.report_interval_s = v;
  }
  if (flags.Has("clients")) {
    absl::StatusOr<int64_t> n = flags.GetInt("clients", 1, 100000);
    if (!n.ok()) return n.status();
    const int64_t topics =
        static_cast<int64_t>(s->clients.count) * s->clients.topics_per_client;
    s->clients.count = static_cast<int>(*n);
    s->clients.topics_per_client = static_cast<int>(
        std::max<int64_t>(1, std::llround(static_cast<double>(topics) / *n)));
  }
  return sim::ValidateScenario(*s);
}

int Simulate(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err) {
  absl::StatusOr<ParsedFlags> flags = ParseFlags(args, SimulateFlags());
  if (!flags.ok()) return Fail(err, kExitUsage, flags.status());
  absl::StatusOr<uint64_t> seed = flags->GetUint64("seed");
  if (!seed.ok()) return Fail(err, kExitUsage, seed.status());
  absl::StatusOr<sim::Scenario> scenario =
      sim::ReadScenarioFile(flags->Get("scenario"));
  if (!scenario.ok()) return Fail(err, kExitFailure, scenario.status());
  if (absl::Status st = OverridePolicies(*flags, &*scenario); !st.ok()) {
    return Fail(err, kExitUsage, st);
  }
  if (absl::Status st = OverrideScenario(*flags, &*scenario); !st.ok()) {
    return Fail(err, kExitUsage, st);
  }
  const std::string gnuplot =
      flags->Has("gnuplot") ? flags->Get("gnuplot") : "gnuplot";
  // Fail before a long run, not after it.
  if (flags->Has("report") && sim::FindProgram(gnuplot).empty()) {
    return Fail(err, kExitFailure,
                absl::FailedPreconditionError(absl::StrCat(
                    "--report needs gnuplot (\"", gnuplot,
                    "\" not found in PATH); install gnuplot-nox")));
  }

  const sim::SimulationResult result = sim::Simulate(*scenario, *seed);
  if (flags->GetBool("json")) {
    out << sim::ResultToJson(result).dump(2) << "\n";
  } else {
    out << Table(result);
  }
  err << absl::StrFormat("simulated in %.2f s wall time\n",
                         result.wall_seconds);
  if (flags->Has("report")) {
    if (absl::Status s =
            sim::WriteReport(result, flags->Get("report"), gnuplot);
        !s.ok()) {
      return Fail(err, kExitFailure, s);
    }
  }
  return kExitOk;
}

template <typename T>
absl::StatusOr<std::vector<T>> NumberList(const ParsedFlags& flags,
                                          absl::string_view name,
                                          std::vector<T> fallback) {
  if (!flags.Has(name)) return fallback;
  absl::StatusOr<std::vector<std::string>> items = flags.GetList(name);
  if (!items.ok()) return items.status();
  std::vector<T> values;
  for (const std::string& item : *items) {
    T v{};
    bool ok;
    if constexpr (std::is_same_v<T, int>) {
      ok = absl::SimpleAtoi(item, &v);
    } else {
      ok = absl::SimpleAtod(item, &v);
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, ": \"", item, "\" is not a number"));
    }
    values.push_back(v);
  }
  return values;
}

int SweepCommand(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  absl::StatusOr<ParsedFlags> flags = ParseFlags(args, SweepFlags());
  if (!flags.ok()) return Fail(err, kExitUsage, flags.status());
  absl::StatusOr<uint64_t> seed = flags->GetUint64("seed");
  if (!seed.ok()) return Fail(err, kExitUsage, seed.status());
  sim::SweepOptions options;
  absl::StatusOr<std::vector<double>> intervals =
      NumberList<double>(*flags, "report-intervals", {1, 5, 15, 30, 60});
  if (!intervals.ok()) return Fail(err, kExitUsage, intervals.status());
  absl::StatusOr<std::vector<int>> clients =
      NumberList<int>(*flags, "clients", {1, 5, 10, 20, 50});
  if (!clients.ok()) return Fail(err, kExitUsage, clients.status());
  options.report_intervals = *intervals;
  options.client_counts = *clients;
  absl::StatusOr<sim::Scenario> scenario =
      sim::ReadScenarioFile(flags->Get("scenario"));
  if (!scenario.ok()) return Fail(err, kExitFailure, scenario.status());
  if (absl::Status st = OverridePolicies(*flags, &*scenario); !st.ok()) {
    return Fail(err, kExitUsage, st);
  }
  absl::StatusOr<sim::SweepResult> result =
      sim::Sweep(*scenario, *seed, options);
  if (!result.ok()) return Fail(err, kExitUsage, result.status());
  if (flags->GetBool("json")) {
    out << sim::SweepToJson(*scenario, *seed, *result).dump(2) << "\n";
  } else {
    out << sim::SweepToMarkdown(*result);
  }
  err << absl::StrFormat("swept in %.1f s wall time\n", result->wall_seconds);
  return kExitOk;
}

// "3-7" or "5": the seeds from first to last.
absl::StatusOr<std::vector<uint64_t>> SeedRange(const std::string& text) {
  const size_t dash = text.find('-');
  uint64_t lo = 0;
  uint64_t hi = 0;
  const bool ok = dash == std::string::npos
                      ? absl::SimpleAtoi(text, &lo) && (hi = lo, true)
                      : absl::SimpleAtoi(text.substr(0, dash), &lo) &&
                            absl::SimpleAtoi(text.substr(dash + 1), &hi);
  if (!ok || hi < lo || hi - lo >= 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seeds: \"", text, "\" is not first-last (at most 1000 seeds)"));
  }
  std::vector<uint64_t> seeds;
  for (uint64_t s = lo; s <= hi; ++s) seeds.push_back(s);
  return seeds;
}

int TargetsCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  absl::StatusOr<ParsedFlags> flags = ParseFlags(args, TargetsFlags());
  if (!flags.ok()) return Fail(err, kExitUsage, flags.status());
  sim::TargetsOptions options;
  absl::StatusOr<std::vector<uint64_t>> seeds =
      SeedRange(flags->Has("seeds") ? flags->Get("seeds") : "1-10");
  if (!seeds.ok()) return Fail(err, kExitUsage, seeds.status());
  options.seeds = *seeds;
  if (flags->Has("threads")) {
    absl::StatusOr<int64_t> t = flags->GetInt("threads", 1, 64);
    if (!t.ok()) return Fail(err, kExitUsage, t.status());
    options.threads = static_cast<int>(*t);
  }
  absl::StatusOr<sim::Scenario> base =
      sim::ReadScenarioFile(flags->Get("scenario"));
  if (!base.ok()) return Fail(err, kExitFailure, base.status());
  options.base = *std::move(base);
  if (flags->Has("partitioned")) {
    absl::StatusOr<sim::Scenario> p =
        sim::ReadScenarioFile(flags->Get("partitioned"));
    if (!p.ok()) return Fail(err, kExitFailure, p.status());
    options.partitioned = *std::move(p);
  }
  if (flags->Has("add-lag-timeout")) {
    absl::StatusOr<double> v = LagTimeout(*flags);
    if (!v.ok()) return Fail(err, kExitUsage, v.status());
    options.add_lag_timeout_s = *v;
  }
  // Probe on placement, for every run of both scenarios.
  for (sim::Scenario* s :
       {&options.base, options.partitioned ? &*options.partitioned : nullptr}) {
    if (s == nullptr) continue;
    if (absl::Status st = ApplyProbeFlags(*flags, s); !st.ok()) {
      return Fail(err, kExitUsage, st);
    }
  }
  absl::StatusOr<sim::TargetsResult> result = sim::MeasureTargets(options);
  if (!result.ok()) return Fail(err, kExitUsage, result.status());
  if (flags->GetBool("json")) {
    out << sim::TargetsToJson(options, *result).dump(2) << "\n";
  } else {
    out << sim::TargetsToMarkdown(options, *result);
  }
  err << absl::StrFormat("measured in %.0f s wall time\n",
                         result->wall_seconds);
  return kExitOk;
}

}  // namespace

std::vector<Command> SimulateCommands() {
  return {
      {"placement", "simulate",
       "simulate placement quality per policy on a scenario (tools/sim)",
       FlagsUsage(SimulateFlags()), &Simulate},
      {"placement", "sweep",
       "simulate over report ages and client counts: where policies break",
       FlagsUsage(SweepFlags()), &SweepCommand},
      {"placement", "targets",
       "measure the placement targets (tools/sim/README.md) over seeds",
       FlagsUsage(TargetsFlags()), &TargetsCommand},
  };
}

}  // namespace bk::bkctl
