#include "tools/sim/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sim/result_json.h"

namespace bk::sim {
namespace {

using nlohmann::ordered_json;

absl::StatusOr<SweepPoint> RunPoint(Scenario s, uint64_t seed) {
  if (absl::Status st = ValidateScenario(s); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sweep point (report_interval_s ", s.clients.report_interval_s,
        ", clients ", s.clients.count, "): ", st.message()));
  }
  SimulationResult r = Simulate(s, seed);
  SweepPoint p;
  p.report_interval_s = s.clients.report_interval_s;
  p.clients = s.clients.count;
  p.topics_per_client = s.clients.topics_per_client;
  p.runs = std::move(r.runs);
  return p;
}

std::string Name(placement::Weighting w) {
  const absl::string_view n = placement::WeightingName(w);
  return std::string(n.data(), n.size());
}

ordered_json PointJson(const SweepPoint& p) {
  SimulationResult r;
  r.runs = p.runs;
  ordered_json j;
  j["report_interval_s"] = p.report_interval_s;
  j["clients"] = p.clients;
  j["topics_per_client"] = p.topics_per_client;
  j["policies"] = ResultToJson(r)["policies"];
  return j;
}

std::string Table(const std::vector<SweepPoint>& points,
                  const std::string& axis, bool by_clients) {
  if (points.empty()) return "";
  std::string md = absl::StrCat("| ", axis, " |");
  std::string rule = "|---|";
  for (const PolicyRun& run : points[0].runs) {
    const std::string n = Name(run.weighting);
    absl::StrAppend(&md, " ", n, " p99 s | ", n, " stddev | ", n, " herd |");
    rule += "---|---|---|";
  }
  md += "\n" + rule + "\n";
  for (const SweepPoint& p : points) {
    md += by_clients ? absl::StrFormat("| %d |", p.clients)
                     : absl::StrFormat("| %g |", p.report_interval_s);
    for (const PolicyRun& run : p.runs) {
      const PolicySummary& s = run.summary;
      absl::StrAppendFormat(&md, " %.3f | %.1f | %.2f |", s.p99_write_latency,
                            s.throughput_stddev, s.herd_index);
    }
    md += "\n";
  }
  return md;
}

}  // namespace

absl::StatusOr<SweepResult> Sweep(const Scenario& base, uint64_t seed,
                                  const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  SweepResult result;
  for (double interval : options.report_intervals) {
    Scenario s = base;
    s.clients.report_interval_s = interval;
    absl::StatusOr<SweepPoint> p = RunPoint(std::move(s), seed);
    if (!p.ok()) return p.status();
    result.by_report_age.push_back(*std::move(p));
  }
  const int64_t total_topics =
      static_cast<int64_t>(base.clients.count) * base.clients.topics_per_client;
  for (int clients : options.client_counts) {
    Scenario s = base;
    s.clients.count = clients;
    s.clients.topics_per_client = static_cast<int>(std::max<int64_t>(
        1, std::llround(static_cast<double>(total_topics) / clients)));
    absl::StatusOr<SweepPoint> p = RunPoint(std::move(s), seed);
    if (!p.ok()) return p.status();
    result.by_clients.push_back(*std::move(p));
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

ordered_json SweepToJson(const Scenario& base, uint64_t seed,
                         const SweepResult& result) {
  ordered_json j;
  j["seed"] = seed;
  j["scenario"] = ScenarioToJson(base);
  j["report_age"] = ordered_json::array();
  for (const SweepPoint& p : result.by_report_age) {
    j["report_age"].push_back(PointJson(p));
  }
  j["clients"] = ordered_json::array();
  for (const SweepPoint& p : result.by_clients) {
    j["clients"].push_back(PointJson(p));
  }
  return j;
}

std::string SweepToMarkdown(const SweepResult& result) {
  return absl::StrCat("### Report age (clients.report_interval_s)\n\n",
                      Table(result.by_report_age, "report interval s", false),
                      "\n### Client count (total topics fixed)\n\n",
                      Table(result.by_clients, "clients", true));
}

}  // namespace bk::sim
